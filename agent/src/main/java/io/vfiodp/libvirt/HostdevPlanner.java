package io.vfiodp.libvirt;

import io.vfiodp.host.PciAddress;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.KubeVirtEnv;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Env (and optionally a VMI) → the hostdevs to attach, following virt-launcher's rules
 * ({@code pkg/virt-launcher/virtwrap/device/hostdevice/}: {@code hostdev.go}, {@code gpu/},
 * {@code generic/}):
 *
 * <ul>
 *   <li>An entry takes the next device of its resource's variable: {@code PCI_RESOURCE_<NAME>}
 *       (a PCI hostdev) or {@code MDEV_PCI_RESOURCE_<NAME>} (an mdev hostdev). KubeVirt reads
 *       both for every entry; one that lists nothing yields no hostdev, so an empty variable
 *       next to a set one of the other kind is passed over. Values may carry upper-case hex and
 *       a trailing comma, as KubeVirt accepts them.</li>
 *   <li>Order: all {@code hostDevices[]} hostdevs before all {@code gpus[]} ones, and within each
 *       list all PCI hostdevs before all mdevs, each in VMI order (the converter appends the
 *       generic list, then the GPU list; each list appends its PCI hostdevs, then its mdevs).
 *       libvirt gives guest slots in element order, so this is what the guest sees.</li>
 *   <li>One pool serves both lists: {@code gpus[]} entries draw first, then {@code hostDevices[]}
 *       entries, each in VMI order, so every {@code gpus[]} entry gets the device KubeVirt's GPU
 *       pool gives it. KubeVirt builds one pool per list, so a resource named in both lists
 *       hands its first device to an entry of each and libvirt refuses the domain; with one
 *       pool each entry gets its own.</li>
 *   <li>Aliases {@code ua-gpu-<name>} and {@code ua-hostdevice-<name>}.</li>
 *   <li>Display and ramfb by KubeVirt's rules for {@code gpus[]} ({@link GpuDisplays}), of the
 *       release asked for ({@link KubeVirtRelease}); more than one {@code gpus[]} entry enabling
 *       ramfb is refused, as KubeVirt refuses it.</li>
 *   <li>Without a VMI: every device variable, PCI ones first, each kind in name order, each
 *       device in value order; no display.</li>
 * </ul>
 *
 * Every problem is collected; any problem means no hostdevs at all, never a partial set. Each
 * variable is split once, however many entries name it, so the work grows with the number of
 * devices, not with its square; past {@value #MAX_DEVICES} devices, in the VMI's entries or in one
 * variable, the plan fails saying so.
 */
public final class HostdevPlanner {

    /**
     * The most devices the helper takes: VMI entries ({@code gpus[]} and {@code hostDevices[]}
     * together), and devices listed in one variable. A guest's PCI domain has 256 buses and
     * libvirt gives each hostdev without an address a root port (and a bus) of its own, so a VM
     * holds at most a few hundred; input past this is not a VM's.
     */
    public static final int MAX_DEVICES = 1024;
    /** How much of a variable's value a message quotes. */
    private static final int QUOTED_CHARS = 120;

    private static final Pattern ALIAS = Pattern.compile("[a-zA-Z0-9_\\-.]+");
    /** KubeVirt's {@code PCI_ADDRESS_PATTERN} ({@code pkg/util/hardware/hw_utils.go}): either case. */
    private static final Pattern PCI_ID = Pattern.compile("[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");

    /**
     * @param companionsOption companions wanted unless the VMI's annotation says otherwise
     * @param release          the KubeVirt release whose virt-launcher to follow where releases differ
     */
    public PlanOutcome plan(LauncherEnv env, Optional<VmiDevices> vmi, boolean companionsOption, KubeVirtRelease release) {
        boolean companions = vmi.flatMap(VmiDevices::companions).orElse(companionsOption);
        Work work = new Work(env, companions, release);
        if (vmi.isPresent() && vmi.get().requests().size() > MAX_DEVICES) {
            return new PlanOutcome.Failed(List.of(vmi.get().describe() + " has " + vmi.get().requests().size()
                    + " device entries (gpus[] and hostDevices[]); the helper takes at most " + MAX_DEVICES
                    + ", more than a guest's PCI buses can hold"));
        }
        if (vmi.isPresent()) {
            work.fromVmi(vmi.get());
        } else {
            work.fromVariables();
        }
        return work.outcome();
    }

    /** State of one planning call. */
    private static final class Work {
        private final LauncherEnv env;
        private final boolean companions;
        private final KubeVirtRelease release;
        private final Set<String> problems = new LinkedHashSet<>();
        private final Set<String> notes = new LinkedHashSet<>();
        private final List<String> warnings = new ArrayList<>();
        private final List<PlannedHostdev> planned = new ArrayList<>();
        private final AddressPool pool = new AddressPool();
        private final Map<String, Optional<Map<PciAddress, List<PciAddress>>>> companionsByVariable = new HashMap<>();
        /** Each variable's IDs, split once: every entry naming its resource draws from the same list. */
        private final Map<String, Optional<List<String>>> idsByVariable = new HashMap<>();

        Work(LauncherEnv env, boolean companions, KubeVirtRelease release) {
            this.env = env;
            this.companions = companions;
            this.release = release;
        }

        PlanOutcome outcome() {
            if (!problems.isEmpty()) return new PlanOutcome.Failed(List.copyOf(problems));
            return new PlanOutcome.Planned(planned, List.copyOf(notes), warnings);
        }

        /** An entry with the variable that serves it and that variable's IDs. */
        private record Resolved(DeviceRequest request, ResourceVariable.Set variable, List<String> ids) {}

        /** An entry with the device it drew. */
        private record Drawn(DeviceRequest request, ResourceVariable.Set variable, List<String> ids, String id) {
            String origin() {
                return request.describe() + " via " + variable.name();
            }
        }

        /** virt-launcher's element order: hostDevices[] before gpus[], PCI before mdev, then VMI order (the sort is stable). */
        private static final Comparator<Drawn> KUBEVIRT_ORDER = Comparator
                .comparing((Drawn d) -> d.request().section() == DeviceRequest.Section.HOST_DEVICES ? 0 : 1)
                .thenComparing(d -> d.variable().kind() == DeviceKind.PCI ? 0 : 1);

        void fromVmi(VmiDevices vmi) {
            List<Resolved> resolved = new ArrayList<>();
            for (DeviceRequest request : vmi.requests()) {
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
                    case ResourceVariable.Set variable -> ids(variable, request.describe())
                            .ifPresent(ids -> resolved.add(new Resolved(request, variable, ids)));
                }
            }
            List<Drawn> drawn = new ArrayList<>();
            for (Resolved r : resolved) {
                Optional<String> id = pool.pop(r.variable().name(), r.ids());
                if (id.isPresent()) {
                    drawn.add(new Drawn(r.request(), r.variable(), r.ids(), id.get()));
                } else {
                    problems.add(r.request().describe() + ": " + r.variable().name() + " lists " + r.ids().size()
                            + " device(s) ('" + quoted(r.variable().value()) + "'), fewer than the VMI entries naming " + r.request().resourceName());
                }
            }
            GpuDisplays.ramfbConflict(vmi).ifPresent(problems::add);
            List<GpuDisplays.Device> devices = drawn.stream().map(d -> new GpuDisplays.Device(d.request(), d.variable().kind())).toList();
            Map<DeviceRequest, GpuDisplays.Choice> displays = GpuDisplays.choose(vmi, devices, release);
            List<String> unset = GpuDisplays.unsetMdevRamfbs(devices);
            if (!unset.isEmpty()) {
                warnings.add(vmi.describe() + ": " + String.join(", ", unset) + " " + (unset.size() == 1 ? "is" : "are")
                        + " {} (enabled unset) on an mdev vGPU; virt-launcher (v1.9.0 and main) would crash on it, dereferencing the"
                        + " unset enabled (hostdev.go, createMDEVHostDeviceWithDisplay). virt-api sets enabled: true when it admits a VMI,"
                        + " so this one did not pass its defaults; written with display and ramfb, as for enabled: true");
            }
            for (Drawn d : drawn.stream().sorted(KUBEVIRT_ORDER).toList()) {
                GpuDisplays.Choice display = displays.getOrDefault(d.request(), GpuDisplays.Choice.NONE);
                if (d.variable().kind() == DeviceKind.PCI) {
                    PciAddress source = PciAddress.parse(d.id());
                    planned.add(new PlannedHostdev.Pci(d.request().alias(), source,
                            companions(d.variable(), d.ids(), source, d.request().describe()), display.display(), display.ramfb(),
                            d.origin()));
                } else {
                    planned.add(new PlannedHostdev.Mdev(d.request().alias(), MdevUuid.parse(d.id()), display.display(), display.ramfb(),
                            d.origin()));
                }
            }
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

        /** {@link #split}, once per variable: the first caller names it in problems. */
        private Optional<List<String>> ids(ResourceVariable.Set variable, String who) {
            Optional<List<String>> ids = idsByVariable.get(variable.name());
            if (ids == null) {
                ids = split(variable, who);
                idsByVariable.put(variable.name(), ids);
            }
            return ids;
        }

        /**
         * The variable's IDs as KubeVirt splits them (a trailing comma is dropped, an empty
         * value lists nothing), each checked and written as sysfs names the device (lower-case),
         * so that one device is one ID however the value spelled it; empty when any is malformed
         * or there are more than {@link #MAX_DEVICES}.
         */
        private Optional<List<String>> split(ResourceVariable.Set variable, String who) {
            String value = variable.value();
            if (value.endsWith(",")) value = value.substring(0, value.length() - 1);
            if (value.isEmpty()) return Optional.of(List.of());
            long count = value.chars().filter(c -> c == ',').count() + 1;
            if (count > MAX_DEVICES) {
                problems.add(who + ": " + variable.name() + " lists " + count + " devices; the helper takes at most " + MAX_DEVICES
                        + " from one variable");
                return Optional.empty();
            }
            List<String> ids = new ArrayList<>();
            boolean ok = true;
            String[] items = value.split(",", -1);
            for (int i = 0; i < items.length; i++) {
                String id = items[i];
                boolean pci = variable.kind() == DeviceKind.PCI;
                boolean valid = pci ? PCI_ID.matcher(id).matches() && PciAddress.tryParse(id.toLowerCase(Locale.ROOT)).isPresent() : isUuid(id);
                if (!valid) {
                    ok = false;
                    problems.add(who + ": " + variable.name() + " item " + (i + 1) + " '" + quoted(id) + "' is not "
                            + (pci ? "a PCI address (expected DDDD:BB:SS.F in hex)" : "an mdev UUID"));
                }
                ids.add(id.toLowerCase(Locale.ROOT));
            }
            return ok ? Optional.of(List.copyOf(ids)) : Optional.empty();
        }

        /** {@code text}, or its start and how long it is when too long to quote in full. */
        private static String quoted(String text) {
            return text.length() <= QUOTED_CHARS ? text : text.substring(0, QUOTED_CHARS) + "... (" + text.length() + " characters)";
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
                if (c.equals(device)) {
                    problems.add(who + ": " + cv.name() + " gives " + c + " as a companion of itself");
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
            Set<String> listed = new HashSet<>(ids);
            for (PciAddress key : table.keySet()) {
                if (!listed.contains(key.toString())) {
                    problems.add(who + ": " + cv.name() + " lists companions for " + key + ", which " + variable.name() + " does not list");
                }
            }
            return Optional.of(table);
        }
    }
}
