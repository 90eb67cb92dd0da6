package io.vfiodp.kube.kubevirt;

import io.vfiodp.kube.kubevirt.model.KubeVirt;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Picks the KubeVirt CR whose configuration is in force. KubeVirt supports one CR per cluster:
 * its admission webhook rejects a second one and virt-operator refuses to act on more than one,
 * so the first created is the installation KubeVirt runs with. CRs being deleted are ignored,
 * as KubeVirt's cluster config does.
 */
final class ActiveKubeVirt {

    record Selection(Optional<KubeVirt> active, List<KubeVirt> ignored) {
        Selection {
            ignored = List.copyOf(ignored);
        }
    }

    private static final Comparator<KubeVirt> FIRST_CREATED = Comparator
            .comparing((KubeVirt kv) -> created(kv).orElse(Instant.MAX))
            .thenComparing(kv -> String.valueOf(kv.getMetadata().getNamespace()))
            .thenComparing(kv -> kv.getMetadata().getName());

    private ActiveKubeVirt() {}

    static Selection select(Collection<KubeVirt> all) {
        List<KubeVirt> live = all.stream()
                .filter(kv -> kv.getMetadata().getDeletionTimestamp() == null)
                .sorted(FIRST_CREATED)
                .toList();
        if (live.isEmpty()) return new Selection(Optional.empty(), List.of());
        return new Selection(Optional.of(live.get(0)), live.subList(1, live.size()));
    }

    static CrRef ref(KubeVirt kv) {
        return new CrRef(String.valueOf(kv.getMetadata().getNamespace()), kv.getMetadata().getName());
    }

    private static Optional<Instant> created(KubeVirt kv) {
        String ts = kv.getMetadata().getCreationTimestamp();
        if (ts == null) return Optional.empty();
        try {
            return Optional.of(Instant.parse(ts));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
