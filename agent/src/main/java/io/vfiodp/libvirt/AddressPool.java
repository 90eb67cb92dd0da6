package io.vfiodp.libvirt;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Hands out device IDs by position, as KubeVirt's {@code hostdevice.AddressPool} does: each
 * resource's list is consumed front to back by the entries naming that resource, and an ID
 * once handed out is never handed out again, even under another resource.
 *
 * <p>Unlike KubeVirt, one pool serves {@code gpus[]} and {@code hostDevices[]} together:
 * KubeVirt builds a fresh pool per list, so a resource named in both lists would give both
 * entries the same first device.
 */
final class AddressPool {

    private final Map<String, Integer> next = new HashMap<>();
    private final Set<String> taken = new HashSet<>();

    /** The next free ID of {@code variable}'s list, or empty when the list is used up. */
    Optional<String> pop(String variable, List<String> ids) {
        int i = next.getOrDefault(variable, 0);
        while (i < ids.size() && taken.contains(ids.get(i))) i++;
        if (i >= ids.size()) {
            next.put(variable, i);
            return Optional.empty();
        }
        String id = ids.get(i);
        taken.add(id);
        next.put(variable, i + 1);
        return Optional.of(id);
    }
}
