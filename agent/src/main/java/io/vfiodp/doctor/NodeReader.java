package io.vfiodp.doctor;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.Reading;
import io.vfiodp.host.scan.KernelFactsReader;
import io.vfiodp.host.scan.ResetSupportReader;
import io.vfiodp.host.scan.ReaderPool;
import io.vfiodp.host.ResetSupport;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.kube.kubevirt.KubeVirtCrReading;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.config.ConfigFile;
import io.vfiodp.policy.config.InvalidConfigException;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Reads what the checks look at, once, the way serve would read it: the scan (through the
 * confined readers of {@code host}), the kernel's facts, the VFIO container's answer, the
 * configuration (the KubeVirt CR's {@code permittedHostDevices} win over the {@code --config}
 * file, as in serve) and the kubelet's directories. Changes nothing.
 */
public final class NodeReader {

    private NodeReader() {}

    /**
     * What a pass decided, for a view on it: the policy's result under the permitted devices from
     * {@code permittedFrom}, and the device names it used.
     */
    public record Decided(PolicyResult policy, Optional<PermittedHostDevices> permitted, String permittedFrom, Reading<String> pciIds) {}

    /** @param kubevirt the KubeVirt CR read once; empty where it should not be asked */
    public static NodeView read(DoctorSettings settings, VfioProbe vfio, Supplier<Optional<KubeVirtCrReading>> kubevirt) {
        HostSnapshot host;
        // a large host's scan is most of doctor's time: read it on every core, as serve's start does
        try (ReaderPool readers = ReaderPool.forThisMachine()) {
            host = new SysfsScanner(settings.sysRoot(), settings.devRoot(), readers).scan();
        }
        Optional<KubeVirtCrReading> cr = kubevirt.get();
        ConfigStatus config = new ConfigStatus.None();
        Optional<PermittedHostDevices> permitted = Optional.empty();
        String from = "the default NVIDIA naming";
        if (settings.config().isPresent()) {
            try {
                ConfigFile.Loaded loaded = ConfigFile.read(settings.config().get());
                config = new ConfigStatus.Loaded(settings.config().get(), loaded.warnings());
                permitted = loaded.permittedHostDevices();
                if (permitted.isPresent()) from = "--config " + settings.config().get();
            } catch (InvalidConfigException e) {
                config = new ConfigStatus.Invalid(settings.config().get(), e.getMessage());
            }
        }
        if (cr.orElse(null) instanceof KubeVirtCrReading.Found found && found.permittedHostDevices().isPresent()) {
            permitted = found.permittedHostDevices();
            from = "the KubeVirt CR " + found.source();
        }
        Reading<String> origin;
        PciIds ids;
        try {
            ids = PciIds.loadQuietly(settings.pciIds(), PolicyEngine.vendorsNamed(host));
            origin = new Reading.Found<>(ids.origin().describe());
        } catch (IOException e) {
            ids = bundled();
            origin = new Reading.Unreadable<>(settings.pciIds().map(Object::toString).orElse("pci.ids"), e.getMessage());
        }
        Decided decided = new Decided(PolicyEngine.evaluate(host, permitted, ids), permitted, from, origin);
        return view(settings, host, vfio.ask(settings.devRoot()), config, decided, cr);
    }

    /** A view on a snapshot and decision already made (serve's pass), with what the VFIO container answered. */
    public static NodeView view(DoctorSettings settings, HostSnapshot host, Reading<VfioAvailability> vfio, ConfigStatus config,
                                Decided decided, Optional<KubeVirtCrReading> kubevirt) {
        KernelFacts kernel = KernelFactsReader.read(settings.sysRoot(), settings.procRoot(), settings.bootRoot(), VfioModulesCheck.MODULES,
                KernelSupport.CONFIG_OPTIONS);
        List<PciFunction> candidates = Devices.candidates(host, decided.permitted());
        return new NodeView(settings.roots(), kernel, host, vfio, config, decided.pciIds(), decided.policy(), decided.permittedFrom(), candidates,
                ResetSupportReader.read(settings.sysRoot(), candidates.stream().map(PciFunction::address).toList()),
                KubeletFacts.read(settings.kubelet()), kubevirt);
    }

    private static PciIds bundled() {
        try {
            return PciIds.bundled();
        } catch (IOException e) {
            throw new IllegalStateException("the pci.ids copy in the jar cannot be read: " + e.getMessage(), e);
        }
    }
}
