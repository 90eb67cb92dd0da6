package io.vfiodp.inventory;

import io.vfiodp.host.PciAddress;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.holders.HolderView;
import io.vfiodp.inventory.InventoryReport.ResourceSummary;
import io.vfiodp.inventory.InventoryReport.Row;
import io.vfiodp.policy.Decision;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.PolicyProblem;
import io.vfiodp.policy.Route;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The inventory as a table for people: one line per device with the decision last, and
 * indented detail lines under it (model, companions, type, notes, why unhealthy, who holds it).
 */
public final class InventoryText {

    private static final String[] DEVICE_HEADER = {"DEVICE", "VENDOR:DEVICE", "CLASS", "DRIVER", "IOMMU", "NUMA", "HEALTH", "DECISION"};
    private static final String[] RESOURCE_HEADER = {"RESOURCE", "KIND", "DEVICES", "HEALTHY"};
    private static final String[] ROUTED_RESOURCE_HEADER = {"RESOURCE", "KIND", "DEVICES", "HEALTHY", "VIA"};

    private InventoryText() {}

    public static String format(InventoryReport report) {
        return format(report, Optional.empty());
    }

    /** As {@link #format(InventoryReport)}, with a {@code vfio:} line saying what {@code /dev/vfio/vfio} answered. */
    public static String format(InventoryReport report, Optional<VfioAvailability> vfio) {
        return format(report, vfio, Optional.empty());
    }

    /** As {@link #format(InventoryReport, Optional)}, with a HOLDER column when {@code holders} says who holds each device. */
    public static String format(InventoryReport report, Optional<VfioAvailability> vfio, Optional<HolderView> holders) {
        StringBuilder out = new StringBuilder();
        out.append("pci.ids: ").append(report.pciIds().describe()).append('\n');
        out.append("configuration: ").append(report.configuration().orElse("none (default: NVIDIA GPUs, NVSwitches and vGPUs)"))
                .append('\n');
        vfio.ifPresent(v -> out.append("vfio: ").append(v.describe()).append('\n'));
        holders.ifPresent(h -> out.append(HolderText.sourceLine(h)).append('\n'));
        boolean routed = !report.routing().equals(DraRouting.NONE);
        if (routed) out.append("dra: ").append(report.routing()).append(" (served through DRA; every other resource through device plugins)\n");
        out.append('\n');

        List<String[]> cells = new ArrayList<>();
        String[] header = holders.isPresent() ? HolderText.withHolderColumn(DEVICE_HEADER, "HOLDER") : DEVICE_HEADER;
        cells.add(header);
        for (Row row : report.rows()) {
            String[] c = cells(report, row);
            cells.add(holders.isPresent() ? HolderText.withHolderColumn(c, HolderText.cell(holders.get(), row.id(), offered(row))) : c);
        }
        int[] widths = widths(cells);
        int indent = widths[0] + 2;
        out.append(line(header, widths));
        for (int i = 0; i < report.rows().size(); i++) {
            Row row = report.rows().get(i);
            out.append(line(cells.get(i + 1), widths));
            List<String> details = details(report, row);
            holders.ifPresent(h -> details.addAll(HolderText.details(h, row.id(), offered(row))));
            for (String detail : details) {
                out.append(" ".repeat(indent)).append(detail).append('\n');
            }
        }
        if (report.rows().isEmpty()) out.append("(no GPU, NVSwitch, vGPU or VFIO device found)\n");

        out.append('\n');
        List<String[]> resourceCells = new ArrayList<>();
        resourceCells.add(routed ? ROUTED_RESOURCE_HEADER : RESOURCE_HEADER);
        for (ResourceSummary r : report.resources()) {
            String[] c = {r.name(), r.kind().name(), Integer.toString(r.devices().size()), Integer.toString(r.healthy()), r.route().label()};
            resourceCells.add(routed ? c : Arrays.copyOf(c, 4));
        }
        int[] resourceWidths = widths(resourceCells);
        for (String[] c : resourceCells) out.append(line(c, resourceWidths));
        if (report.resources().isEmpty()) out.append("(none: nothing is exposed)\n");

        out.append("\nscan problems:");
        if (report.scanProblems().isEmpty()) out.append(" none");
        out.append('\n');
        for (ScanProblem p : report.scanProblems()) out.append("  ").append(p.path()).append(": ").append(p.reason()).append('\n');

        if (report.configuration().isPresent()) {
            out.append("configuration problems:");
            if (report.configProblems().isEmpty()) out.append(" none");
            out.append('\n');
            for (PolicyProblem p : report.configProblems()) out.append("  ").append(p).append('\n');
        }
        return out.toString();
    }

    private static String[] cells(InventoryReport report, Row row) {
        return new String[] {
            row.id(),
            row.vendorDevice().orElse("-"),
            row.type() == InventoryReport.Type.MDEV ? "mdev" : row.classCode().orElse("-"),
            row.driver().orElse("-"),
            row.iommuGroup().isPresent() ? Integer.toString(row.iommuGroup().getAsInt()) : "-",
            Integer.toString(row.numaNode()),
            row.health().map(Health::wireValue).orElse("-"),
            row.decision() instanceof Decision.Exposed e && report.route(e) == Route.DRA
                    ? "exposed through DRA as " + e.resource() : decision(row.decision())
        };
    }

    /** Whether the row's device is offered (on either side): only those have a holder. */
    private static boolean offered(Row row) {
        return row.decision() instanceof Decision.Exposed;
    }

    static String decision(Decision d) {
        return switch (d) {
            case Decision.Exposed e -> "exposed as " + e.resource();
            case Decision.Skipped s -> "skipped: " + s.reason();
            case Decision.Companion c -> "companion of " + c.of();
        };
    }

    private static List<String> details(InventoryReport report, Row row) {
        List<String> out = new ArrayList<>();
        String model = row.model().orElse("unknown model") + row.vendorName().map(v -> " (" + v + ")").orElse("");
        switch (row.type()) {
            case PCI -> out.add("model: " + model);
            case VGPU_VF -> {
                out.add("model: " + model + ", SR-IOV VF of " + row.parent().map(PciAddress::toString).orElse("?"));
                row.deviceType().ifPresent(t -> out.add("vGPU type: " + (t.id().equals("0") ? "none"
                        : t.id() + t.name().map(n -> " '" + n + "'").orElse(" (name unknown)"))));
            }
            case MDEV -> row.deviceType().ifPresent(t -> out.add("mdev type: " + t.id() + t.name().map(n -> " '" + n + "'").orElse("")
                    + ", parent " + row.parent().map(PciAddress::toString).orElse("?")
                    + " (" + row.model().orElse("unknown model") + ")"));
        }
        if (!row.companions().isEmpty()) {
            out.add("companions: " + row.companions().stream().map(PciAddress::toString).collect(Collectors.joining(", ")));
        }
        if (row.decision() instanceof Decision.Exposed e) {
            if (report.route(e) == Route.DRA) {
                out.add("DRA: device " + row.draDevice().orElse("?") + " in this node's pool; claim it, or ask " + e.resource()
                        + " in a resource limit once its DeviceClass (--device-classes) is applied");
            }
            for (String note : e.notes()) out.add("note: " + note);
        }
        if (row.decision() instanceof Decision.Companion c) {
            for (String note : c.notes()) out.add("note: " + note);
        }
        if (row.health().orElse(Health.HEALTHY) instanceof Health.Unhealthy u) out.add("unhealthy: " + u.reason());
        return out;
    }

    private static int[] widths(List<String[]> rows) {
        int[] w = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) w[i] = Math.max(w[i], r[i].length());
        }
        return w;
    }

    private static String line(String[] cells, int[] widths) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i == cells.length - 1) {
                sb.append(cells[i]);
            } else {
                sb.append(cells[i]).append(" ".repeat(widths[i] - cells[i].length() + 2));
            }
        }
        return sb.toString().stripTrailing() + "\n";
    }
}
