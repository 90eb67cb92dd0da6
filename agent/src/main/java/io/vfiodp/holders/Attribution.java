package io.vfiodp.holders;

import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who holds each device, as a pure function of what the kubelet's PodResources API listed, what
 * the API says of the pods (their VMIs) and what this node offers. A device plugin's device is
 * matched by its ID, whatever resource lists it; a DRA device by its name in this driver's pool.
 * Every way is kept: a container listed twice for one device (a device plugin's allocation and a
 * claim during a switch, or a claim two pods share) is shown as each lists it. What PodResources
 * lists of devices this node does not offer (another plugin's, another driver's) is left out.
 */
public final class Attribution {

    private static final Comparator<Holder> ORDER = Comparator.comparing(Holder::namespace).thenComparing(Holder::pod)
            .thenComparing(Holder::container).thenComparing(h -> h.via().toString());

    private Attribution() {}

    /**
     * @param driver the DRA driver's name: only its claims' devices are this node's
     */
    public static HolderView of(PodResourcesReading reading, PodDetails pods, List<OfferedDevice> offered, String driver) {
        Optional<String> unknownVmis = pods instanceof PodDetails.Unknown u ? Optional.of(u.reason()) : Optional.empty();
        List<HolderView.Entry> entries = new ArrayList<>();
        if (reading instanceof PodResourcesReading.Unreadable(String reason)) {
            for (OfferedDevice d : offered) entries.add(new HolderView.Entry(d, new Holding.Unknown(reason)));
            return new HolderView(entries, Optional.of(reason), unknownVmis);
        }
        Map<String, String> idOfDraName = new HashMap<>();
        for (OfferedDevice d : offered) idOfDraName.put(d.draName(), d.id());
        Map<String, Set<Holder>> holders = new HashMap<>();
        for (HeldDevice h : ((PodResourcesReading.Listed) reading).devices()) {
            String[] pod = split(h.pod());
            Optional<Holder.Vmi> vmi = pods.vmiOf(pod[0], pod[1]);
            switch (h) {
                case HeldDevice.ByPlugin p -> holders.computeIfAbsent(p.id(), k -> new LinkedHashSet<>())
                        .add(new Holder(pod[0], pod[1], container(p.container()), new Holder.Via.Plugin(p.resource()), vmi));
                case HeldDevice.ByClaim c -> {
                    String id = c.driver().equals(driver) ? idOfDraName.get(c.device()) : null;
                    if (id == null) continue;
                    String[] claim = split(c.claim() == null ? "" : c.claim());
                    holders.computeIfAbsent(id, k -> new LinkedHashSet<>())
                            .add(new Holder(pod[0], pod[1], container(c.container()), new Holder.Via.Claim(claim[0], claim[1]), vmi));
                }
            }
        }
        for (OfferedDevice d : offered) {
            Set<Holder> of = holders.get(d.id());
            entries.add(new HolderView.Entry(d, of == null ? Holding.FREE : new Holding.Held(of.stream().sorted(ORDER).toList())));
        }
        return new HolderView(entries, Optional.empty(), unknownVmis);
    }

    private static String container(String name) {
        return name == null ? "" : name;
    }

    /** {@code namespace/name}; a name without a namespace (which PodResources never sends) keeps an empty one. */
    private static String[] split(String namespaced) {
        int slash = namespaced.indexOf('/');
        return slash < 0 ? new String[] {"", namespaced} : new String[] {namespaced.substring(0, slash), namespaced.substring(slash + 1)};
    }
}
