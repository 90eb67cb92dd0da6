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
 * than a vGPU), an mdev whenever its display block does not disable it, and the first mdev by
 * default when no {@code gpus[]} entry has a display block. {@code hostDevices[]} never get one.
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
    static Map<DeviceRequest, Choice> choose(VmiDevices vmi, List<Device> devices) {
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
                    if (r.enabled().orElse(false)) out.put(d.request(), new Choice(true, r.ramfb().orElse(true)));
                }
                case VgpuDisplay.Requested r -> {
                    if (r.enabled().orElse(true)) out.put(d.request(), new Choice(true, r.ramfb().orElse(true)));
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
     * admission webhook refuses that VMI ({@code vmi-create-admitter.go}, validateMDEVRamFB, which
     * counts unset flags as true) and libvirt allows one ramfb per VM.
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
        return display instanceof VgpuDisplay.Requested r && r.enabled().orElse(true) && r.ramfb().orElse(true);
    }
}
