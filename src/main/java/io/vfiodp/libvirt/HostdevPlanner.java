package io.vfiodp.libvirt;

import io.vfiodp.host.PciAddress;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.KubeVirtEnv;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Env (and optionally a VMI) → the hostdevs to attach, following virt-launcher's rules:
 *
 * <ul>
 *   <li>Each {@code gpus[]} entry, then each {@code hostDevices[]} entry, takes the next device
 *       of its resource's variable: {@code PCI_RESOURCE_<NAME>} when set (a PCI hostdev), else
 *       {@code MDEV_PCI_RESOURCE_<NAME>} (an mdev hostdev). KubeVirt decides the kind the same
 *       way: it tries a PCI pool and an mdev pool per entry and keeps whichever has the
 *       resource.</li>
 *   <li>Aliases {@code ua-gpu-<name>} and {@code ua-hostdevice-<name>}.</li>
 *   <li>vGPU display: KubeVirt turns display and ramfb on for a {@code gpus[]} vGPU without
 *       {@code virtualGPUOptions}, follows {@code display.enabled} / {@code display.ramFB.enabled}
 *       (both default true) when given, and turns the display off when options come without a
 *       {@code display} block. libvirt refuses a second ramfb, so only the first vGPU gets the
 *       default display and ramfb, and an explicit ramFB request wins over the default.
 *       {@code hostDevices[]} mdevs never get a display.</li>
 *   <li>Without a VMI: every device variable, in name order, each device in value order.</li>
 * </ul>
 *
 * Every problem is collected; any problem means no hostdevs at all, never a partial set.
 */
public final class HostdevPlanner {

    private static final Pattern ALIAS = Pattern.compile("[a-zA-Z0-9_\\-.]+");

    /**
     * @param companionsOption companions wanted unless the VMI's annotation says otherwise
     */
    public PlanOutcome plan(LauncherEnv env, Optional<VmiDevices> vmi, boolean companionsOption) {
        boolean companions = vmi.flatMap(VmiDevices::companions).orElse(companionsOption);
        Work work = new Work(env, companions);
        if (vmi.isPresent()) {
            work.fromVmi(vmi.get().requests());
        } else {
            work.fromVariables();
        }
        return work.outcome();
    }

    /** State of one planning call. */
    private static final class Work {
        private final LauncherEnv env;
        private final boolean companions;
        private final Set<String> problems = new LinkedHashSet<>();
        private final Set<String> notes = new LinkedHashSet<>();
        private final List<PlannedHostdev> planned = new ArrayList<>();
        private final AddressPool pool = new AddressPool();
        private final Map<String, Optional<Map<PciAddress, List<PciAddress>>>> companionsByVariable = new HashMap<>();

        Work(LauncherEnv env, boolean companions) {
            this.env = env;
            this.companions = companions;
        }

        PlanOutcome outcome() {
            if (!problems.isEmpty()) return new PlanOutcome.Failed(List.copyOf(problems));
            return new PlanOutcome.Planned(planned, List.copyOf(notes));
        }

        /** A vGPU's display choice. */
        private record Display(boolean display, boolean ramfb) {}

        /** An entry with the device it drew. */
        private record Drawn(DeviceRequest request, ResourceVariable.Set variable, List<String> ids, String id) {
            String origin() {
                return request.describe() + " via " + variable.name();
            }
        }

        void fromVmi(List<DeviceRequest> requests) {
            List<Drawn> drawn = new ArrayList<>();
            for (DeviceRequest request : requests) {
                if (!ALIAS.matcher(request.alias()).matches()) {
                    problems.add(request.describe() + ": alias '" + request.alias()
                            + "' has characters libvirt does not allow in an alias (letters, digits, '_', '-', '.')");
                }
                switch (env.lookup(request.resourceName())) {
                    case ResourceVariable.Usb usb -> notes.add(request.describe() + " is a USB device (" + usb.name() + "); KubeVirt attaches it");
                    case ResourceVariable.Unset unset -> problems.add(request.describe() + ": neither " + unset.pciName()
                            + " nor " + unset.mdevName() + " is set in the environment");
                    case ResourceVariable.Both both -> problems.add(request.describe() + ": both " + both.pciName() + " and "
                            + both.mdevName() + " are set; a resource hands out either PCI addresses or mdev UUIDs, never both");
                    case ResourceVariable.Set variable -> ids(variable, request.describe()).ifPresent(ids -> {
                        Optional<String> id = pool.pop(variable.name(), ids);
                        if (id.isPresent()) {
                            drawn.add(new Drawn(request, variable, ids, id.get()));
                        } else {
                            problems.add(request.describe() + ": " + variable.name() + " lists " + ids.size()
                                    + " device(s) ('" + variable.value() + "'), fewer than the VMI entries naming " + request.resourceName());
                        }
                    });
                }
            }
            Map<Drawn, Display> displays = displays(drawn);
            for (Drawn d : drawn) {
                if (d.variable().kind() == DeviceKind.PCI) {
                    PciAddress source = PciAddress.parse(d.id());
                    planned.add(new PlannedHostdev.Pci(d.request().alias(), source,
                            companions(d.variable(), d.ids(), source, d.request().describe()), d.origin()));
                } else {
                    Display display = displays.getOrDefault(d, new Display(false, false));
                    planned.add(new PlannedHostdev.Mdev(d.request().alias(), MdevUuid.parse(d.id()), display.display(), display.ramfb(), d.origin()));
                }
            }
        }

        /** The display choice of each vGPU of {@code gpus[]}. */
        private Map<Drawn, Display> displays(List<Drawn> drawn) {
            List<Drawn> vgpus = drawn.stream()
                    .filter(d -> d.request().section() == DeviceRequest.Section.GPUS && d.variable().kind() == DeviceKind.MDEV)
                    .toList();
            List<Drawn> askRamfb = vgpus.stream()
                    .filter(d -> d.request().display() instanceof VgpuDisplay.Requested r && r.display() && r.ramfb().orElse(false))
                    .toList();
            if (askRamfb.size() > 1) {
                problems.add(String.join(" and ", askRamfb.stream().map(d -> d.request().describe()).toList())
                        + " all set virtualGPUOptions.display.ramFB.enabled; libvirt allows one ramfb per VM");
            }
            Drawn ramfbHolder = askRamfb.size() == 1 ? askRamfb.get(0) : null;
            boolean ramfbExplicit = ramfbHolder != null;
            Map<Drawn, Display> out = new HashMap<>();
            for (Drawn v : vgpus) {
                boolean first = v == vgpus.get(0);
                boolean display;
                boolean wantsRamfb;
                switch (v.request().display()) {
                    case VgpuDisplay.Unspecified u -> {
                        display = first;
                        wantsRamfb = first;
                    }
                    case VgpuDisplay.Requested r -> {
                        display = r.display();
                        wantsRamfb = r.display() && r.ramfb().orElse(true);
                    }
                }
                boolean ramfb = false;
                if (wantsRamfb) {
                    if (ramfbHolder == null) ramfbHolder = v;
                    ramfb = ramfbHolder == v;
                    if (!ramfb) {
                        notes.add(v.request().describe() + ": ramfb left off, " + ramfbHolder.request().describe()
                                + (ramfbExplicit ? " asks for it" : " has it") + " (libvirt allows one per VM)");
                    }
                }
                out.put(v, new Display(display, ramfb));
            }
            return out;
        }

        void fromVariables() {
            Map<String, String> owner = new HashMap<>();
            List<ResourceVariable.Set> variables = env.deviceVariables();
            if (variables.isEmpty()) notes.add("no PCI_RESOURCE_* or MDEV_PCI_RESOURCE_* variable is set: no hostdevs");
            for (ResourceVariable.Set variable : variables) {
                Optional<List<String>> parsed = ids(variable, variable.name());
                if (parsed.isEmpty()) continue;
                List<String> ids = parsed.get();
                String base = "ua-hostdevice-" + variable.name().substring(variable.kind().envPrefix().length() + 1).toLowerCase(Locale.ROOT);
                for (int i = 0; i < ids.size(); i++) {
                    String id = ids.get(i);
                    String where = variable.name() + "[" + i + "]";
                    String previous = owner.putIfAbsent(id, where);
                    if (previous != null) {
                        problems.add(where + ": device " + id + " is listed twice (also " + previous + ")");
                        continue;
                    }
                    String alias = base + "-" + i;
                    if (!ALIAS.matcher(alias).matches()) {
                        problems.add(where + ": alias '" + alias + "' has characters libvirt does not allow in an alias");
                        continue;
                    }
                    if (variable.kind() == DeviceKind.PCI) {
                        PciAddress source = PciAddress.parse(id);
                        planned.add(new PlannedHostdev.Pci(alias, source, companions(variable, ids, source, where), where));
                    } else {
                        planned.add(new PlannedHostdev.Mdev(alias, MdevUuid.parse(id), false, false, where));
                    }
                }
            }
        }

        /**
         * The variable's IDs as KubeVirt splits them (a trailing comma is dropped, an empty
         * value lists nothing), each checked; empty when any is malformed.
         */
        private Optional<List<String>> ids(ResourceVariable.Set variable, String who) {
            String value = variable.value();
            if (value.endsWith(",")) value = value.substring(0, value.length() - 1);
            if (value.isEmpty()) return Optional.of(List.of());
            List<String> ids = List.of(value.split(",", -1));
            boolean ok = true;
            for (int i = 0; i < ids.size(); i++) {
                String id = ids.get(i);
                boolean valid = variable.kind() == DeviceKind.PCI ? PciAddress.tryParse(id).isPresent() : isUuid(id);
                if (!valid) {
                    ok = false;
                    problems.add(who + ": " + variable.name() + " item " + (i + 1) + " '" + id + "' is not "
                            + (variable.kind() == DeviceKind.PCI ? "a PCI address (expected DDDD:BB:SS.F, lower-case hex)" : "an mdev UUID"));
                }
            }
            return ok ? Optional.of(ids) : Optional.empty();
        }

        private static boolean isUuid(String id) {
            try {
                MdevUuid.parse(id);
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }

        private List<PciAddress> companions(ResourceVariable.Set variable, List<String> ids, PciAddress device, String who) {
            if (!companions) return List.of();
            LauncherEnv.CompanionsVariable cv = env.companionsFor(variable);
            Optional<Map<PciAddress, List<PciAddress>>> table = companionsByVariable.computeIfAbsent(cv.name(), n -> decode(cv, variable, ids, who));
            if (table.isEmpty()) return List.of();
            List<PciAddress> out = new ArrayList<>();
            for (PciAddress c : table.get().getOrDefault(device, List.of())) {
                if (!c.sameSlot(device) || c.function() == device.function()) {
                    problems.add(who + ": " + cv.name() + " gives " + c + " as a companion of " + device
                            + ", but it is not another function of the same slot, so its guest function cannot mirror the host's");
                } else if (!out.contains(c)) {
                    out.add(c);
                }
            }
            return out;
        }

        private Optional<Map<PciAddress, List<PciAddress>>> decode(LauncherEnv.CompanionsVariable cv, ResourceVariable.Set variable,
                                                                   List<String> ids, String who) {
            if (cv.value().isEmpty()) {
                notes.add(cv.name() + " is not set: no companion functions known for the devices of " + variable.name());
                return Optional.empty();
            }
            Map<PciAddress, List<PciAddress>> table;
            try {
                table = KubeVirtEnv.decodeCompanions(cv.value().get());
            } catch (IllegalArgumentException e) {
                problems.add(who + ": " + cv.name() + ": " + e.getMessage());
                return Optional.empty();
            }
            for (PciAddress key : table.keySet()) {
                if (!ids.contains(key.toString())) {
                    problems.add(who + ": " + cv.name() + " lists companions for " + key + ", which " + variable.name() + " does not list");
                }
            }
            return Optional.of(table);
        }
    }
}
