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
        return new DoctorSettings(root(node).resolve("sys"), root(node).resolve("dev"), root(node).resolve("proc"), Optional.of(PCI_IDS),
                config, kubelet);
    }

    static NodeView view(String node) {
        return NodeReader.read(settings(node, Optional.empty(), NO_KUBELET), AVAILABLE, Optional::empty);
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
                new Reading.Found<>(cmdline), k.interrupts(), k.cpuVendor());
    }

    /** The same kernel with other ACPI tables. */
    static KernelFacts withAcpiTables(KernelFacts k, Reading<java.util.SortedSet<String>> tables) {
        return new KernelFacts(k.iommuUnits(), k.iommuGroups(), tables, k.modules(), k.pciDrivers(), k.numaNodes(), k.commandLine(),
                k.interrupts(), k.cpuVendor());
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
