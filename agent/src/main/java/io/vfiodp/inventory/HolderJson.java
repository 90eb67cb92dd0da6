package io.vfiodp.inventory;

import io.vfiodp.holders.Holder;
import io.vfiodp.holders.HolderView;
import io.vfiodp.holders.Holding;
import java.util.Optional;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Who holds each device, in the JSON document: the same fields as the table's, every key always present. */
final class HolderJson {

    private HolderJson() {}

    /** {@code {"known": ..., "reason": ..., "vmisKnown": ..., "vmisReason": ...}}: where the holders come from. */
    static void source(ObjectNode n, HolderView view) {
        n.put("known", view.unknownHolders().isEmpty());
        n.put("reason", view.unknownHolders().orElse(null));
        n.put("vmisKnown", view.unknownVmis().isEmpty());
        n.put("vmisReason", view.unknownVmis().orElse(null));
    }

    /**
     * The device's {@code holder}: null when it is not offered, else its state ({@code free}, {@code held},
     * {@code unknown}), the reason when unknown, and the holders.
     */
    static void holder(ObjectNode device, HolderView view, String id, boolean offered) {
        Optional<Holding> holding = offered ? view.holding(id) : Optional.empty();
        if (holding.isEmpty()) {
            device.putNull("holder");
            return;
        }
        ObjectNode n = device.putObject("holder");
        n.put("state", switch (holding.get()) {
            case Holding.Free f -> "free";
            case Holding.Held h -> "held";
            case Holding.Unknown u -> "unknown";
        });
        n.put("reason", holding.get() instanceof Holding.Unknown u ? u.reason() : null);
        ArrayNode holders = n.putArray("holders");
        if (!(holding.get() instanceof Holding.Held held)) return;
        for (Holder h : held.holders()) {
            ObjectNode o = holders.addObject();
            o.put("namespace", h.namespace());
            o.put("pod", h.pod());
            o.put("container", h.container());
            o.put("resource", h.via() instanceof Holder.Via.Plugin p ? p.resource() : null);
            o.put("claim", h.via() instanceof Holder.Via.Claim c ? c.toString() : null);
            o.put("vmi", h.vmi().map(Holder.Vmi::name).orElse(null));
            o.put("vmiUid", h.vmi().map(Holder.Vmi::uid).orElse(null));
            o.put("vm", h.vmi().flatMap(Holder.Vmi::vm).orElse(null));
        }
    }
}
