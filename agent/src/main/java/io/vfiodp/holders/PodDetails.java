package io.vfiodp.holders;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the API says about the pods of this node, as far as attribution needs it: each pod's UID
 * and the VMI it runs. PodResources names the pods and containers; this adds the VMIs, or says why
 * it cannot.
 */
public sealed interface PodDetails {

    /** Pod {@code namespace/name} as the API lists it; empty when it does not, or when the pods are not known. */
    Optional<Pod> pod(String namespace, String name);

    /** The VMI pod {@code namespace/name} runs; empty when it runs none or when the pods are not known. */
    default Optional<Holder.Vmi> vmiOf(String namespace, String name) {
        return pod(namespace, name).flatMap(Pod::vmi);
    }

    /** A pod: its UID, and the VMI it runs when it is a virt-launcher pod. */
    record Pod(String uid, Optional<Holder.Vmi> vmi) {
        public Pod {
            Objects.requireNonNull(uid, "uid");
            Objects.requireNonNull(vmi, "vmi");
        }
    }

    /** The pods of this node the API listed, by {@code namespace/name}. */
    record Known(Map<String, Pod> pods) implements PodDetails {
        public Known {
            pods = Map.copyOf(pods);
        }

        @Override
        public Optional<Pod> pod(String namespace, String name) {
            return Optional.ofNullable(pods.get(namespace + "/" + name));
        }
    }

    /** No API, or it cannot be read: holders come with pod and container names only. */
    record Unknown(String reason) implements PodDetails {
        public Unknown {
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public Optional<Pod> pod(String namespace, String name) {
            return Optional.empty();
        }
    }
}
