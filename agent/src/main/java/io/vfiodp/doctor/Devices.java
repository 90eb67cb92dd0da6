package io.vfiodp.doctor;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Which devices doctor examines one by one, and how findings name them. */
final class Devices {

    private Devices() {}

    /**
     * NVIDIA GPUs and NVSwitches, and every function a {@code pciHostDevices} selector names (any
     * vendor), in address order. SR-IOV VFs are left to their PF's vGPU line: a host has hundreds.
     */
    static List<PciFunction> candidates(HostSnapshot host, Optional<PermittedHostDevices> permitted) {
        List<PciFunction> out = new ArrayList<>();
        for (PciFunction f : host.functions().values()) {
            if (f.physfn().isPresent()) continue;
            if (nvidiaGpuOrSwitch(f) || selected(f, permitted)) out.add(f);
        }
        return out;
    }

    private static boolean nvidiaGpuOrSwitch(PciFunction f) {
        return (f.vendor() == PciFunction.VENDOR_NVIDIA && f.baseClass() == 0x03) || f.isNvSwitch();
    }

    private static boolean selected(PciFunction f, Optional<PermittedHostDevices> permitted) {
        if (permitted.isEmpty()) return false;
        for (PciHostDevice d : permitted.get().pciHostDevices()) {
            if (d.pciVendorSelector().strip().equalsIgnoreCase(f.vendorDevice())) return true;
        }
        return false;
    }

    /** On nvidia and set up for vGPUs: mdev types, or SR-IOV VFs enabled. */
    static boolean hostsVgpus(HostSnapshot host, PciFunction f) {
        return f.isBoundTo("nvidia") && (host.mdevParents().containsKey(f.address()) || !f.virtfns().isEmpty());
    }

    /** On nvidia and able to host vGPUs: mdev types, or an SR-IOV PF. */
    static boolean vgpuCapable(HostSnapshot host, PciFunction f) {
        return f.isBoundTo("nvidia") && (host.mdevParents().containsKey(f.address()) || f.isPhysicalFunction());
    }

    static boolean sameSlot(PciAddress a, PciAddress b) {
        return a.domain() == b.domain() && a.bus() == b.bus() && a.slot() == b.slot();
    }

    /** {@code 0000:3b:00.1 (10de:10f8) on snd_hda_intel}. */
    static String withDriver(PciFunction f) {
        return f.address() + " (" + f.vendorDevice() + ") " + f.driver().map(d -> "on " + d).orElse("without a driver");
    }

    /** {@code 0000:3b:00.1 (10de:10f8)}. */
    static String named(PciFunction f) {
        return f.address() + " (" + f.vendorDevice() + ")";
    }
}
