package io.vfiodp.serve;


import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.testkit.deviceplugin.Watch;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.node.NodeStateSource;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.plugin.PluginListener;
import io.vfiodp.plugin.ServedPlugins;
import io.vfiodp.plugin.PluginSettings;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.triggers.DirectoryWatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A fixture copy served the way {@code serve} does it (runtime, /dev/vfio watch triggering
 * rescans, periodic rescan) to the kubelet simulator; counts the scans it runs.
 */
public final class ServedHost implements AutoCloseable {

    public final HostTree host;
    public final KubeletSimulator kubelet;
    public final ServedPlugins runtime;
    private final DirectoryWatch watch;
    private final AtomicInteger scans;

    private ServedHost(HostTree host, KubeletSimulator kubelet, ServedPlugins runtime, DirectoryWatch watch, AtomicInteger scans) {
        this.host = host;
        this.kubelet = kubelet;
        this.runtime = runtime;
        this.watch = watch;
        this.scans = scans;
    }

    public static ServedHost start(Path fixture, Path temp, Duration rescanInterval, PluginListener listener) throws IOException {
        return start(fixture, temp, rescanInterval, listener, policy -> policy);
    }

    /** As above, each pass made by {@code pass} around scan and policy (e.g. serve's, timed into metrics). */
    public static ServedHost start(Path fixture, Path temp, Duration rescanInterval, PluginListener listener,
                                   Function<ScanPolicySource, NodeStateSource> pass) throws IOException {
        HostTree host = HostTree.copy(fixture, temp.resolve("node"));
        Path plugins = Files.createDirectories(temp.resolve("plugins"));
        KubeletSimulator kubelet = KubeletSimulator.start(plugins);
        AtomicInteger scans = new AtomicInteger();
        SysfsScanner scanner = new SysfsScanner(host.sys(), host.dev());
        ScanPolicySource policy = new ScanPolicySource(() -> {
            scans.incrementAndGet();
            return scanner.scan();
        }, Optional.empty(), PciIds.bundled());
        ServedPlugins runtime = ServedPlugins.start(PluginSettings.of(plugins), rescanInterval, pass.apply(policy), listener);
        DirectoryWatch watch = DirectoryWatch.start(host.dev().resolve("vfio"), "/dev/vfio dir", "served-host-vfio-watch",
                change -> runtime.rescanNow());
        return new ServedHost(host, kubelet, runtime, watch, scans);
    }

    public int scans() {
        return scans.get();
    }

    /** Waits for an update sent after the first {@code seen} ones that matches. */
    public static ListAndWatchResponse awaitUpdateAfter(Watch w, int seen, Predicate<ListAndWatchResponse> match, Duration timeout)
            throws InterruptedException, TimeoutException {
        // the watch tests each update once, in order, and wakes on every message (no Awaitility: the benches run without it)
        AtomicInteger index = new AtomicInteger();
        try {
            return w.awaitUpdate(u -> index.getAndIncrement() >= seen && match.test(u), timeout);
        } catch (TimeoutException e) {
            throw new TimeoutException(w.resource() + ": no matching update after the first " + seen + " within " + timeout + "; got " + w.updates());
        }
    }

    /** {@code id health} per device, as the kubelet sees it. */
    public static List<String> devices(ListAndWatchResponse r) {
        return r.getDevicesList().stream().map(d -> d.getID() + " " + d.getHealth()).sorted().toList();
    }

    public static Predicate<ListAndWatchResponse> listing(String... devices) {
        List<String> expected = List.of(devices).stream().sorted().toList();
        return r -> devices(r).equals(expected);
    }

    public static Predicate<ListAndWatchResponse> has(String id, String health) {
        return r -> r.getDevicesList().stream().anyMatch(d -> d.getID().equals(id) && d.getHealth().equals(health));
    }

    static boolean lists(ListAndWatchResponse r, String id) {
        return r.getDevicesList().stream().map(Device::getID).anyMatch(id::equals);
    }

    @Override
    public void close() {
        watch.close();
        runtime.close();
        kubelet.close();
    }
}
