package io.vfiodp.doctor;

import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.Reading;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.kube.kubevirt.KubeVirtCrReading;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Doctor's views of the fixture nodes, as the checks' tests read them. */
final class Nodes {

    /** The bundled copy, given explicitly so that a host's own pci.ids cannot change the names. */
    static final Path PCI_IDS = project().resolve("src/main/resources/pci.ids.gz");
    static final VfioProbe AVAILABLE = devRoot -> new Reading.Found<>(new VfioAvailability.Available(0, true, true));
    /** Where no kubelet ever was. */
    static final KubeletPaths NO_KUBELET = new KubeletPaths(Path.of("/nonexistent/device-plugins"), false,
            Path.of("/nonexistent/plugins_registry"), Path.of("/nonexistent/cdi"));

    private Nodes() {}

    static Path project() {
        String basedir = System.getProperty("basedir");
        return basedir != null ? Path.of(basedir) : Path.of("").toAbsolutePath();
    }

    static Path root(String node) {
        return SysfsFixtures.committedRoot().resolve(node);
    }

    /** {@code relative} below fixture node {@code node}, as findings name files. */
    static String file(String node, String relative) {
        return root(node).resolve(relative).toString();
    }

    static DoctorSettings settings(String node, Optional<Path> config, KubeletPaths kubelet) {
        return new DoctorSettings(root(node).resolve("sys"), root(node).resolve("dev"), root(node).resolve("proc"),
                Optional.of(root(node).resolve("boot")), Optional.of(PCI_IDS),
                config, kubelet);
    }

    static NodeView view(String node) {
        return NodeReader.read(settings(node, Optional.empty(), NO_KUBELET), AVAILABLE, Optional::empty);
    }

    /** The view of a node's trees copied to {@code nodeDir} (and changed there). */
    static NodeView viewAt(Path nodeDir) {
        return NodeReader.read(new DoctorSettings(nodeDir.resolve("sys"), nodeDir.resolve("dev"), nodeDir.resolve("proc"),
                Optional.of(nodeDir.resolve("boot")), Optional.of(PCI_IDS), Optional.empty(), NO_KUBELET), AVAILABLE, Optional::empty);
    }

    static NodeView view(String node, Path config) {
        return NodeReader.read(settings(node, Optional.of(config), NO_KUBELET), AVAILABLE, Optional::empty);
    }

    static NodeView view(String node, KubeVirtCrReading kubevirt) {
        return NodeReader.read(settings(node, Optional.empty(), NO_KUBELET), AVAILABLE, () -> Optional.of(kubevirt));
    }

    /** The same view with other kernel facts. */
    static NodeView withKernel(NodeView v, KernelFacts kernel) {
        return new NodeView(v.roots(), kernel, v.host(), v.vfio(), v.config(), v.pciIds(), v.policy(), v.permittedFrom(), v.candidates(),
                v.resets(), v.kubelet(), v.kubevirt());
    }

    /** The same view with another answer from the VFIO container. */
    static NodeView withVfio(NodeView v, Reading<VfioAvailability> vfio) {
        return new NodeView(v.roots(), v.kernel(), v.host(), vfio, v.config(), v.pciIds(), v.policy(), v.permittedFrom(), v.candidates(),
                v.resets(), v.kubelet(), v.kubevirt());
    }

    /** The same kernel with another command line. */
    static KernelFacts withCommandLine(KernelFacts k, String cmdline) {
        return new KernelFacts(k.iommuUnits(), k.iommuGroups(), k.acpiTables(), k.modules(), k.pciDrivers(), k.numaNodes(),
                new Reading.Found<>(cmdline), k.interrupts(), k.cpuVendor(), k.machine(), k.build());
    }

    /** The same kernel with other ACPI tables. */
    static KernelFacts withAcpiTables(KernelFacts k, Reading<java.util.SortedSet<String>> tables) {
        return new KernelFacts(k.iommuUnits(), k.iommuGroups(), tables, k.modules(), k.pciDrivers(), k.numaNodes(), k.commandLine(),
                k.interrupts(), k.cpuVendor(), k.machine(), k.build());
    }

    /** The same kernel on another machine. */
    static KernelFacts withMachine(KernelFacts k, KernelFacts.Machine machine) {
        return new KernelFacts(k.iommuUnits(), k.iommuGroups(), k.acpiTables(), k.modules(), k.pciDrivers(), k.numaNodes(), k.commandLine(),
                k.interrupts(), k.cpuVendor(), machine, k.build());
    }

    /** The same kernel built otherwise. */
    static KernelFacts withBuild(KernelFacts k, KernelFacts.Build build) {
        return new KernelFacts(k.iommuUnits(), k.iommuGroups(), k.acpiTables(), k.modules(), k.pciDrivers(), k.numaNodes(), k.commandLine(),
                k.interrupts(), k.cpuVendor(), k.machine(), build);
    }

    /** The same kernel with other modules and PCI drivers registered. */
    static KernelFacts withModules(KernelFacts k, java.util.SortedMap<String, Reading<KernelFacts.KernelModule>> modules,
                                   Reading<java.util.SortedSet<String>> pciDrivers) {
        return new KernelFacts(k.iommuUnits(), k.iommuGroups(), k.acpiTables(), modules, pciDrivers, k.numaNodes(), k.commandLine(),
                k.interrupts(), k.cpuVendor(), k.machine(), k.build());
    }

    /**
     * A build whose configuration, read from {@code /boot/config-test}, sets {@code options} (name, value, name, value ...;
     * none: a configuration that sets nothing asked for); with {@code /proc/modules} or without, and modules_disabled.
     */
    static KernelFacts.Build build(boolean moduleList, String modulesDisabled, String... options) {
        java.util.SortedMap<String, String> set = new java.util.TreeMap<>();
        for (int i = 0; i < options.length; i += 2) set.put(options[i], options[i + 1]);
        return new KernelFacts.Build(new Reading.Found<>("test"), new Reading.Found<>(new KernelFacts.KernelConfig("/boot/config-test", set)),
                moduleList ? new Reading.Found<>(true) : new Reading.Absent<>("/proc/modules"), new Reading.Found<>(modulesDisabled));
    }

    /** A build whose configuration is exposed nowhere. */
    static KernelFacts.Build unexposedBuild(boolean moduleList) {
        return new KernelFacts.Build(new Reading.Found<>("test"), new Reading.Absent<>("/proc/config.gz and /boot/config-test"),
                moduleList ? new Reading.Found<>(true) : new Reading.Absent<>("/proc/modules"),
                moduleList ? new Reading.Found<>("0") : new Reading.Absent<>("/proc/sys/kernel/modules_disabled"));
    }

    /** The one finding of a node-wide check. */
    static Outcome outcome(Check check, NodeView v) {
        List<Finding> findings = check.run(v);
        if (findings.size() != 1) throw new AssertionError("expected one finding, got " + findings);
        return findings.getFirst().outcome();
    }

    /** The finding of a per-device check about {@code address}. */
    static Outcome about(Check check, NodeView v, String address) {
        return check.run(v).stream().filter(f -> f.subject().equals(Optional.of(address))).findFirst()
                .orElseThrow(() -> new AssertionError("no finding about " + address + " in " + check.run(v))).outcome();
    }

    /** A kubelet directory with a listening {@code kubelet.sock}; close the channel to remove the socket's listener. */
    static ServerSocketChannel kubeletSocket(Path dir) throws IOException {
        Files.createDirectories(dir);
        ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        channel.bind(UnixDomainSocketAddress.of(dir.resolve("kubelet.sock")));
        return channel;
    }
}
