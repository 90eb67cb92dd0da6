package io.vfiodp.libvirt;

import io.vfiodp.policy.DeviceKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which {@code gpus[]} devices get {@code display='on'} and {@code ramfb='on'}, by
 * virt-launcher's rules ({@code pkg/virt-launcher/virtwrap/device/hostdevice/hostdev.go}):
 * a PCI GPU only when its display is explicitly enabled (it may be plain passthrough rather
 * than a vGPU), with ramfb as the release decides ({@link KubeVirtRelease#ramfbBesidePciDisplay});
 * an mdev whenever its display block does not disable it, and the first mdev by default when no
 * {@code gpus[]} entry has a display block. {@code hostDevices[]} never get one. virt-launcher
 * reads {@code ramFB} as virt-api stored it ({@link VgpuDisplay.RamFb#admitted()}).
 */
final class GpuDisplays {

    private GpuDisplays() {}

    /** A hostdev's display choice. */
    record Choice(boolean display, boolean ramfb) {
        static final Choice NONE = new Choice(false, false);
    }

    /** A device an entry drew, and its kind. */
    record Device(DeviceRequest request, DeviceKind kind) {}

    /** The choice for each {@code gpus[]} device with a display; {@code devices} in VMI order. */
    static Map<DeviceRequest, Choice> choose(VmiDevices vmi, List<Device> devices, KubeVirtRelease release) {
        boolean displaySet = vmi.requests().stream().anyMatch(r -> r.section() == DeviceRequest.Section.GPUS
                        && r.display() instanceof VgpuDisplay.Requested)
                || vmi.claimedGpus().stream().anyMatch(c -> c.display() instanceof VgpuDisplay.Requested);
        Map<DeviceRequest, Choice> out = new HashMap<>();
        boolean defaultGiven = false;
        for (Device d : devices) {
            if (d.request().section() != DeviceRequest.Section.GPUS) continue;
            boolean pci = d.kind() == DeviceKind.PCI;
            switch (d.request().display()) {
                case VgpuDisplay.Requested r when pci -> {
                    if (r.enabled().orElse(false)) out.put(d.request(), new Choice(true, release.ramfbBesidePciDisplay(r.ramFb().admitted())));
                }
                case VgpuDisplay.Requested r -> {
                    // createMDEVHostDeviceWithDisplay: RamFB == nil || *RamFB.Enabled
                    if (r.enabled().orElse(true)) out.put(d.request(), new Choice(true, r.ramFb().admitted() != VgpuDisplay.RamFb.DISABLED));
                }
                case VgpuDisplay.Unspecified u -> {
                    if (!pci && !displaySet && !defaultGiven) {
                        out.put(d.request(), new Choice(true, true));
                        defaultGiven = true;
                    }
                }
            }
        }
        return out;
    }

    /**
     * The problem when more than one {@code gpus[]} entry enables a display with ramfb: KubeVirt's
     * admission webhook refuses that VMI ({@code vmi-create-admitter.go}, validateMDEVRamFB) and
     * libvirt allows one ramfb per VM. Its {@code countConfiguredMDEVRamFBs} counts an unset
     * {@code display.enabled} as true, and since 93e8f0e299 (in main, not in v1.9.0) also a
     * {@code ramFB} without {@code enabled}; but it sees the VMI after virt-api's mutator has
     * defaulted that {@code enabled} to true ({@link VgpuDisplay.RamFb#admitted()}), so for a VMI
     * both releases refuse the same ones (v1.9.0 let only VM and VMIRS templates through, which
     * are validated before the defaults, and then refused the VMI made from them).
     */
    static Optional<String> ramfbConflict(VmiDevices vmi) {
        List<String> ramfbs = new ArrayList<>();
        for (DeviceRequest r : vmi.requests()) {
            if (r.section() == DeviceRequest.Section.GPUS && enablesRamfb(r.display())) ramfbs.add(r.describe());
        }
        for (VmiDevices.ClaimedGpu c : vmi.claimedGpus()) {
            if (enablesRamfb(c.display())) ramfbs.add(c.describe());
        }
        if (ramfbs.size() < 2) return Optional.empty();
        return Optional.of(String.join(" and ", ramfbs) + " each enable a display with ramfb (virtualGPUOptions.display with"
                + " enabled and ramFB.enabled unset or true); KubeVirt refuses such a VMI and libvirt allows one ramfb per VM");
    }

    private static boolean enablesRamfb(VgpuDisplay display) {
        return display instanceof VgpuDisplay.Requested r && r.enabled().orElse(true) && r.ramFb().admitted() != VgpuDisplay.RamFb.DISABLED;
    }

    /**
     * The fields of mdev {@code gpus[]} devices that would make virt-launcher panic if it got them
     * as written: a display that is not disabled with {@code ramFB} present and {@code enabled}
     * unset. {@code createMDEVHostDeviceWithDisplay} ({@code hostdev.go}, v1.9.0 and main alike)
     * checks {@code RamFB == nil} and then dereferences {@code RamFB.Enabled}. virt-api's defaults
     * fill it in for every VMI it admits, so only a VMI that did not pass them carries it.
     */
    static List<String> unsetMdevRamfbs(List<Device> devices) {
        List<String> fields = new ArrayList<>();
        for (Device d : devices) {
            if (d.request().section() == DeviceRequest.Section.GPUS && d.kind() == DeviceKind.MDEV
                    && d.request().display() instanceof VgpuDisplay.Requested r && r.enabled().orElse(true)
                    && r.ramFb() == VgpuDisplay.RamFb.UNSET) {
                fields.add("spec.domain.devices.gpus[" + d.request().index() + "].virtualGPUOptions.display.ramFB");
            }
        }
        return fields;
    }
}
