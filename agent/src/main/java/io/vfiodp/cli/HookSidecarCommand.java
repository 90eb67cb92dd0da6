package io.vfiodp.cli;

import io.vfiodp.hooks.DomainDefinitionHook;
import io.vfiodp.hooks.HookSidecarServer;
import io.vfiodp.libvirt.HostdevXml;
import io.vfiodp.libvirt.KubeVirtRelease;
import io.vfiodp.libvirt.LauncherEnv;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

@Command(name = "hook-sidecar",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = {
            "Serve as a KubeVirt hook sidecar (hooks.kubevirt.io/hookSidecars): OnDefineDomain merges the hostdevs "
                    + "for this container's PCI_RESOURCE_*/MDEV_PCI_RESOURCE_* variables into the domain, idempotently.",
            "Runs until virt-launcher calls Shutdown or the process gets SIGTERM; removes its socket on the way out."})
final class HookSidecarCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(HookSidecarCommand.class);

    @Option(names = "--socket-dir", paramLabel = "DIR", defaultValue = "/var/run/kubevirt-hooks",
            description = "Directory virt-launcher scans for hook sockets (default: ${DEFAULT-VALUE}).")
    Path socketDir;

    @Option(names = "--companions",
            description = "Attach each GPU's companion functions unless the VMI's vfio-device-plugin.io/companions annotation says \"false\".")
    boolean companions;

    @Option(names = "--env-file", paramLabel = "FILE",
            description = "Read the device variables from NAME=VALUE lines in FILE instead of this process's environment.")
    Path envFile;

    @Option(names = "--kubevirt-version", paramLabel = "VERSION", converter = KubeVirtVersionConverter.class,
            description = "Follow virt-launcher of this KubeVirt release (X.Y) where releases differ: 1.9 (any v1.9.x) or "
                    + "1.10 (the coming release, as main is; 'main' works too). Default: the release the VMI's "
                    + "status.launcherContainerImageVersion names; when it names neither, " + KubeVirtRelease.NEWEST_VERSION
                    + ", the newest release, with a warning.")
    KubeVirtRelease kubevirtVersion;

    @Override
    public Integer call() throws IOException, InterruptedException {
        LauncherEnv env = envFile != null ? LauncherEnv.fromFile(envFile) : LauncherEnv.of(System.getenv());
        DomainDefinitionHook hook = new DomainDefinitionHook(env, companions, Optional.ofNullable(kubevirtVersion), new HostdevXml());
        HookSidecarServer server = HookSidecarServer.start(socketDir, hook);
        // SIGTERM runs shutdown hooks: stop serving and remove the socket before the JVM halts.
        Thread onSigterm = new Thread(server::close, "hook-sidecar-sigterm");
        Runtime.getRuntime().addShutdownHook(onSigterm);
        LOG.info("hook sidecar ready; it stops when virt-launcher calls Shutdown or on SIGTERM");
        server.awaitStopRequest();
        server.close();
        try {
            Runtime.getRuntime().removeShutdownHook(onSigterm);
        } catch (IllegalStateException alreadyShuttingDown) {
            // SIGTERM arrived meanwhile; the hook closes (already closed) and the JVM exits.
        }
        return 0;
    }
}
