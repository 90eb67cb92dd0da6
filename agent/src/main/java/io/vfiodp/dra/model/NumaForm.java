package io.vfiodp.dra.model;

import io.vfiodp.host.NumaTopology;
import java.util.Objects;
import java.util.Optional;

/**
 * How {@code resource.kubernetes.io/numaNode} is published (KEP-6072), as the operator chose it
 * ({@code --dra-numa-form}): a driver cannot tell whether the cluster has DRAListTypeAttributes
 * (KEP-5491), without which the API server drops a list value and refuses the attribute.
 *
 * @param list     the list form ({@code ints}): the device's node, then its same-socket nodes at the smallest SLIT distance
 * @param topology the host's NUMA nodes, which the list form is made from
 */
public record NumaForm(boolean list, NumaTopology topology) {

    /** The scalar form ({@code int}): the device's node. */
    public static final NumaForm SCALAR = new NumaForm(false, NumaTopology.NONE);

    public NumaForm {
        Objects.requireNonNull(topology, "topology");
    }

    public static NumaForm list(NumaTopology topology) {
        return new NumaForm(true, topology);
    }

    /** The attribute of a device on {@code numaNode}; none for -1, the kernel's "no NUMA affinity", which would match every such device. */
    public Optional<AttributeValue> attribute(int numaNode) {
        if (numaNode < 0) return Optional.empty();
        if (!list) return Optional.of(new AttributeValue.Int(numaNode));
        return Optional.of(new AttributeValue.Ints(topology.localNodes(numaNode).stream().map(Integer::longValue).toList()));
    }

    /** As the option spells it: {@code scalar} or {@code list}. */
    @Override
    public String toString() {
        return list ? "list" : "scalar";
    }
}
