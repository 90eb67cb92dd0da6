package io.vfiodp.holders;

import io.vfiodp.policy.Health;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * When to tell a pod (and its VMI) that a device it holds turned Unhealthy, or Healthy again: once
 * per change, whatever the number of views in between. A pure step: what was told before and the
 * new view give what to tell now and what counts as told. A view without PodResources changes
 * nothing (the holders are not known, so nobody is told, and nothing told is forgotten); a pod that
 * no longer holds the device is forgotten without a word.
 */
public final class HealthNotices {

    private HealthNotices() {}

    /**
     * Tell pod {@code holder} (and its VMI) that {@code device}, which its {@code containers} hold, has the health it has now.
     *
     * @param holder the first of the pod's containers that hold it, for the pod and its VMI
     */
    public record Notice(Holder holder, List<String> containers, OfferedDevice device) {
        public Notice {
            Objects.requireNonNull(holder, "holder");
            containers = List.copyOf(containers);
            Objects.requireNonNull(device, "device");
        }

        public boolean unhealthy() {
            return device.health() instanceof Health.Unhealthy;
        }
    }

    /** Pod {@code namespace/name} was told that {@code device} is Unhealthy for {@code reason}. */
    public record Told(String pod, String device, String reason) {}

    /** What to tell now, and everything told that still holds. */
    public record Step(List<Notice> notices, Set<Told> told) {
        public Step {
            notices = List.copyOf(notices);
            told = Set.copyOf(told);
        }
    }

    public static Step next(Set<Told> told, HolderView view) {
        if (view.unknownHolders().isPresent()) return new Step(List.of(), told);
        Map<String, Told> before = new HashMap<>();
        for (Told t : told) before.put(t.pod() + " " + t.device(), t);
        List<Notice> notices = new ArrayList<>();
        List<Told> now = new ArrayList<>();
        for (HolderView.Entry e : view.entries()) {
            if (!(e.holding() instanceof Holding.Held held)) continue;
            Map<String, List<Holder>> byPod = new LinkedHashMap<>();
            for (Holder h : held.holders()) byPod.computeIfAbsent(h.podName(), k -> new ArrayList<>()).add(h);
            for (Map.Entry<String, List<Holder>> pod : byPod.entrySet()) {
                Told previous = before.get(pod.getKey() + " " + e.device().id());
                Notice notice = new Notice(pod.getValue().getFirst(), pod.getValue().stream().map(Holder::container).distinct().toList(),
                        e.device());
                if (e.device().health() instanceof Health.Unhealthy(String reason)) {
                    Told t = new Told(pod.getKey(), e.device().id(), reason);
                    now.add(t);
                    if (!t.equals(previous)) notices.add(notice);
                } else if (previous != null) {
                    notices.add(notice);
                }
            }
        }
        return new Step(notices, Set.copyOf(now));
    }
}
