package io.vfiodp.inventory;

import io.vfiodp.host.PciAddress;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.holders.HolderView;
import io.vfiodp.inventory.InventoryReport.ResourceSummary;
import io.vfiodp.inventory.InventoryReport.Row;
import io.vfiodp.policy.Decision;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.KubeVirtEnv;
import io.vfiodp.policy.PolicyProblem;
import java.util.Locale;
import java.util.Optional;
import tools.jackson.core.util.DefaultIndenter;
import tools.jackson.core.util.DefaultPrettyPrinter;
import tools.jackson.core.util.Separators;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The inventory as a JSON document for tools. Stable: every key is always present (null when it
 * does not apply), keys come in a fixed order, rows in the report's order (PCI functions by
 * address, then mdevs by UUID). The schema is documented in docs/inventory.md and versioned by
 * {@value #SCHEMA}.
 */
public final class InventoryJson {

    public static final String SCHEMA = "vfio-device-plugin/inventory/v1";

    private InventoryJson() {}

    public static String format(InventoryReport report) {
        return format(report, Optional.empty());
    }

    /** As {@link #format(InventoryReport)}, with a {@code vfio} object saying what {@code /dev/vfio/vfio} answered. */
    public static String format(InventoryReport report, Optional<VfioAvailability> vfio) {
        return format(report, vfio, Optional.empty());
    }

    /**
     * As {@link #format(InventoryReport, Optional)}, with who holds each device when {@code holders} is there: a
     * {@code holders} object (where they come from) and each device's {@code holder}.
     */
    public static String format(InventoryReport report, Optional<VfioAvailability> vfio, Optional<HolderView> holders) {
        ObjectMapper mapper = new JsonMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("schema", SCHEMA);
        root.put("pciIds", report.pciIds().source());
        root.put("pciIdsVersion", report.pciIds().version().orElse(null));
        root.put("pciIdsChosen", report.pciIds().reason().orElse(null));
        root.put("configuration", report.configuration().orElse(null));
        root.put("dra", report.routing().toString());
        vfio.ifPresent(v -> {
            ObjectNode n = root.putObject("vfio");
            switch (v) {
                case VfioAvailability.Available a -> {
                    n.put("available", true);
                    n.put("apiVersion", a.apiVersion());
                    n.put("type1Iommu", a.type1());
                    n.put("type1v2Iommu", a.type1v2());
                }
                case VfioAvailability.Unavailable u -> {
                    n.put("available", false);
                    n.put("reason", u.reason());
                }
            }
        });
        holders.ifPresent(h -> HolderJson.source(root.putObject("holders"), h));
        ArrayNode devices = root.putArray("devices");
        for (Row row : report.rows()) {
            ObjectNode device = device(mapper, report, row);
            holders.ifPresent(h -> HolderJson.holder(device, h, row.id(), row.decision() instanceof Decision.Exposed));
            devices.add(device);
        }
        ArrayNode resources = root.putArray("resources");
        for (ResourceSummary r : report.resources()) {
            ObjectNode n = resources.addObject();
            n.put("name", r.name());
            n.put("kind", r.kind().name());
            n.put("envVar", KubeVirtEnv.variableName(r.kind(), r.name()));
            ArrayNode ids = n.putArray("devices");
            r.devices().forEach(ids::add);
            n.put("healthy", r.healthy());
            n.put("via", r.route().label());
        }
        ArrayNode scan = root.putArray("scanProblems");
        for (ScanProblem p : report.scanProblems()) {
            ObjectNode n = scan.addObject();
            n.put("path", p.path());
            n.put("reason", p.reason());
        }
        ArrayNode config = root.putArray("configProblems");
        for (PolicyProblem p : report.configProblems()) {
            ObjectNode n = config.addObject();
            n.put("severity", p.severity().name().toLowerCase(Locale.ROOT));
            n.put("message", p.message());
        }
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter(Separators.createDefaultInstance()
                        .withObjectNameValueSpacing(Separators.Spacing.AFTER)
                        .withObjectEmptySeparator("")
                        .withArrayEmptySeparator(""))
                .withObjectIndenter(new DefaultIndenter("  ", "\n"))
                .withArrayIndenter(new DefaultIndenter("  ", "\n"));
        return mapper.writer().with(printer).writeValueAsString(root) + "\n";
    }

    private static ObjectNode device(ObjectMapper mapper, InventoryReport report, Row row) {
        ObjectNode n = mapper.createObjectNode();
        n.put("id", row.id());
        n.put("type", row.type().label());
        n.put("vendorDevice", row.vendorDevice().orElse(null));
        n.put("vendorName", row.vendorName().orElse(null));
        n.put("model", row.model().orElse(null));
        n.put("class", row.classCode().orElse(null));
        n.put("driver", row.driver().orElse(null));
        if (row.iommuGroup().isPresent()) {
            n.put("iommuGroup", row.iommuGroup().getAsInt());
        } else {
            n.putNull("iommuGroup");
        }
        ArrayNode companions = n.putArray("companions");
        row.companions().forEach(c -> companions.add(c.toString()));
        n.put("numaNode", row.numaNode());
        n.put("parent", row.parent().map(PciAddress::toString).orElse(null));
        if (row.deviceType().isPresent()) {
            ObjectNode t = n.putObject("deviceType");
            t.put("id", row.deviceType().get().id());
            t.put("name", row.deviceType().get().name().orElse(null));
        } else {
            n.putNull("deviceType");
        }
        n.put("health", row.health().map(Health::wireValue).orElse(null));
        n.put("healthReason", row.health().flatMap(InventoryJson::reason).orElse(null));
        ObjectNode d = n.putObject("decision");
        Decision decision = row.decision();
        d.put("outcome", switch (decision) {
            case Decision.Exposed e -> "exposed";
            case Decision.Skipped s -> "skipped";
            case Decision.Companion c -> "companion";
        });
        d.put("resource", decision instanceof Decision.Exposed e ? e.resource().value() : null);
        d.put("via", decision instanceof Decision.Exposed e ? report.route(e).label() : null);
        d.put("draDevice", row.draDevice().orElse(null));
        d.put("reason", decision instanceof Decision.Skipped s ? s.reason() : null);
        d.put("companionOf", decision instanceof Decision.Companion c ? c.of().toString() : null);
        ArrayNode notes = d.putArray("notes");
        if (decision instanceof Decision.Exposed e) e.notes().forEach(notes::add);
        if (decision instanceof Decision.Companion c) c.notes().forEach(notes::add);
        return n;
    }

    private static Optional<String> reason(Health h) {
        return h instanceof Health.Unhealthy u ? Optional.of(u.reason()) : Optional.empty();
    }
}
