package io.vfiodp.libvirt;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * KubeVirt's own code for {@code gpus[]} displays, transcribed line by line from kubevirt/kubevirt
 * with Go's nil pointers as Java nulls, to hold the helper against: virt-api's defaults
 * ({@code staging/src/kubevirt.io/api/core/v1/defaults.go} SetDefaults_FeatureState, applied by
 * {@code zz_generated.defaults.go} to a present {@code ramFB}), its admission
 * ({@code pkg/virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter.go}
 * countConfiguredMDEVRamFBs) and virt-launcher's builders
 * ({@code pkg/virt-launcher/virtwrap/device/hostdevice/hostdev.go}, {@code gpu/hostdev.go}), each
 * as it reads at tag v1.9.0 (commit 79d34c1762) and at main (d923fdb815).
 */
final class KubeVirtOracle {

    private KubeVirtOracle() {}

    /** {@code v1.FeatureState}. */
    record FeatureState(Boolean enabled) {}

    /** {@code v1.VGPUDisplayOptions}. */
    record Display(Boolean enabled, FeatureState ramFB) {}

    /** {@code v1.VGPUOptions}. */
    record Options(Display display) {}

    /** A {@code gpus[]} entry and the kind of device the plugin gave it. */
    record Gpu(String name, boolean pci, Options options) {}

    /** An {@code api.HostDevice}'s display attributes. */
    record Shown(boolean display, boolean ramfb) {}

    /** virt-launcher dereferenced a nil pointer: the Go process panics. */
    static final class Panic extends RuntimeException {
        Panic(String where) {
            super(where);
        }
    }

    /** virt-api's mutator on create: SetObjectDefaults_VirtualMachineInstance, for the GPUs' ramFB. */
    static List<Gpu> defaulted(List<Gpu> gpus) {
        List<Gpu> out = new ArrayList<>();
        for (Gpu g : gpus) {
            Options o = g.options();
            if (o != null && o.display() != null && o.display().ramFB() != null && o.display().ramFB().enabled() == null) {
                o = new Options(new Display(o.display().enabled(), new FeatureState(true)));
            }
            out.add(new Gpu(g.name(), g.pci(), o));
        }
        return out;
    }

    /** countConfiguredMDEVRamFBs of {@code release}; validateMDEVRamFB refuses more than one. */
    static int countConfiguredMdevRamFbs(KubeVirtRelease release, List<Gpu> gpus) {
        int count = 0;
        for (Gpu device : gpus) {
            Options o = device.options();
            if (o != null && o.display() != null && (o.display().enabled() == null || o.display().enabled())
                    && (release == KubeVirtRelease.V1_9
                            ? o.display().ramFB() == null || (o.display().ramFB().enabled() != null && o.display().ramFB().enabled())
                            : o.display().ramFB() == null || o.display().ramFB().enabled() == null || o.display().ramFB().enabled())) {
                count++;
            }
        }
        return count;
    }

    /**
     * gpu.CreateHostDevicesFromPools: PCI devices by createPCIHostDevice, then mdevs by
     * CreateMDEVHostDevices(..., DefaultDisplayOn), each list in VMI order; by name.
     */
    static Map<String, Shown> hostDevices(KubeVirtRelease release, List<Gpu> gpus) {
        Map<String, Shown> out = new LinkedHashMap<>();
        for (Gpu g : gpus) {
            if (g.pci()) out.put(g.name(), createPciHostDevice(release, g.options()));
        }
        List<String> mdevs = new ArrayList<>();
        for (Gpu g : gpus) {
            if (g.pci()) continue;
            out.put(g.name(), createMdevHostDeviceWithDisplay(g.options()));
            mdevs.add(g.name());
        }
        boolean displaySetIn = gpus.stream().anyMatch(g -> isVgpuDisplaySet(g.options()));
        if (!displaySetIn && !mdevs.isEmpty()) out.put(mdevs.getFirst(), new Shown(true, true));
        return out;
    }

    private static boolean isVgpuDisplaySet(Options o) {
        return o != null && o.display() != null;
    }

    private static boolean isVgpuDisplayExplicitlyEnabled(Display d) {
        return d.enabled() != null && d.enabled();
    }

    private static boolean isRamFbSet(KubeVirtRelease release, Options o) {
        if (release == KubeVirtRelease.V1_9) {
            return o != null && o.display() != null && o.display().ramFB() != null && o.display().ramFB().enabled() != null
                    && o.display().ramFB().enabled();
        }
        return isVgpuDisplaySet(o) && (o.display().ramFB() == null || o.display().ramFB().enabled() == null || o.display().ramFB().enabled());
    }

    private static Shown createPciHostDevice(KubeVirtRelease release, Options o) {
        if (isVgpuDisplaySet(o) && isVgpuDisplayExplicitlyEnabled(o.display())) return new Shown(true, isRamFbSet(release, o));
        return new Shown(false, false);
    }

    private static Shown createMdevHostDeviceWithDisplay(Options o) {
        if (o != null && o.display() != null) {
            Boolean displayEnabled = o.display().enabled();
            if (displayEnabled == null || displayEnabled) {
                FeatureState ramFb = o.display().ramFB();
                if (ramFb != null && ramFb.enabled() == null) throw new Panic("*RamFB.Enabled with RamFB.Enabled nil");
                return new Shown(true, ramFb == null || ramFb.enabled());
            }
        }
        return new Shown(false, false);
    }
}
