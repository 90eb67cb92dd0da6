package io.vfiodp.serve;

import io.vfiodp.dra.DraSettings;
import io.vfiodp.policy.DraRouting;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything {@code serve} is told, parsed: the command line, its environment defaults and where
 * the Kubernetes API is configured. {@link ServeApp} builds the plugin from it and nothing else.
 *
 * @param procRoot        the tree that plays {@code /proc}: the kernel command line and interrupts doctor's start-up line reads
 * @param pciIds          an explicit pci.ids file, else the usual lookup order
 * @param config          the {@code --config} file, else the default policy
 * @param followKubeVirt  follow the KubeVirt CR ({@code --kubevirt auto}) when an API is configured
 * @param kubeApi         where the Kubernetes API is configured ({@code in-cluster service 10.0.0.1}); empty: none is. It is
 *                        used when {@code --kubevirt auto} or DRA asks for it ({@link #usesApi()}), or where the DRA
 *                        driver ran, for the slices it left and the claims it must see unprepared
 * @param metricsAddress  the HTTP endpoints' address as given ({@code [HOST]:PORT}); empty disables them
 * @param probeAddress    {@code /healthz} and {@code /readyz} on an address of their own ({@code --probe-address}), {@code /metrics}
 *                        alone then on {@code metricsAddress}; empty: the probes are on {@code metricsAddress}
 * @param rescanInterval  the full rescan period as given ({@code --rescan-interval}); empty: {@link #rescanPeriod(boolean) the default}
 * @param uevents         whether kernel uevents are listened to
 * @param vgpu            the vGPU layout settings; {@code manage} makes serve create and remove vGPUs
 * @param dra             which resources go through DRA, and the DRA driver's name and directories
 */
public record ServeConfig(Path sysfsRoot, Path devRoot, Path procRoot, Optional<Path> pciIds, Optional<Path> config, Path devicePluginDir,
                          boolean followKubeVirt, Optional<String> kubeApi, Optional<String> nodeName, Optional<Duration> rescanInterval,
                          UeventMode uevents, String metricsAddress, String probeAddress, Vgpu vgpu, Dra dra, String version) {

    /** The full rescan period while no uevents arrive: every device change that leaves /dev/vfio alone waits for it. */
    public static final Duration RESCAN_WITHOUT_UEVENTS = Duration.ofSeconds(30);
    /**
     * The full rescan period while uevents arrive: a safety net only (docs/operating.md, "Health",
     * says what it still catches: a vGPU type written to an SR-IOV VF by another tool).
     */
    public static final Duration RESCAN_WITH_UEVENTS = Duration.ofMinutes(5);

    /** How long start-up waits for the first reading of the KubeVirt CR before serving the local configuration. */
    public static final Duration FIRST_CR_READING_WAIT = Duration.ofSeconds(5);

    /**
     * @param manage             create and remove vGPUs to match the configured layout
     * @param stateDir           where the record of the vGPUs this plugin made survives restarts
     * @param podResourcesSocket the kubelet's PodResources socket, asked which devices pods hold: who holds each device, which
     *                           vGPUs are in use, what a switch to DRA waits for
     */
    public record Vgpu(boolean manage, Path stateDir, Path podResourcesSocket) {
        public Vgpu {
            Objects.requireNonNull(stateDir, "stateDir");
            Objects.requireNonNull(podResourcesSocket, "podResourcesSocket");
        }
    }

    /**
     * @param routing     which resources go through DRA instead of the device plugins (none: DRA is off)
     * @param driverName  the DRA driver's name: in ResourceSlices, DeviceClasses, claims and CDI kinds
     * @param registryDir the kubelet's plugin registry directory
     * @param pluginDir   the driver's own directory (socket, checkpoint, metadata files); empty: the kubelet's
     *                    plugins directory's entry for {@code driverName}
     * @param cdiDir      where container runtimes read CDI specs
     * @param numaList    {@code resource.kubernetes.io/numaNode} in its list form ({@code --dra-numa-form list}), else scalar
     */
    public record Dra(DraRouting routing, String driverName, Path registryDir, Optional<Path> pluginDir, Path cdiDir, boolean numaList) {

        /** Nothing through DRA. */
        public static final Dra OFF = new Dra(DraRouting.NONE, DraSettings.DEFAULT_DRIVER, DraSettings.REGISTRY_DIR, Optional.empty(),
                DraSettings.CDI_DIR, false);

        public Dra {
            Objects.requireNonNull(routing, "routing");
            Objects.requireNonNull(driverName, "driverName");
            Objects.requireNonNull(registryDir, "registryDir");
            Objects.requireNonNull(pluginDir, "pluginDir");
            Objects.requireNonNull(cdiDir, "cdiDir");
        }

        /** Some resource may go through DRA: the driver runs. */
        public boolean enabled() {
            return routing.routesAny();
        }
    }

    public ServeConfig {
        Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        Objects.requireNonNull(devRoot, "devRoot");
        Objects.requireNonNull(procRoot, "procRoot");
        Objects.requireNonNull(pciIds, "pciIds");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(devicePluginDir, "devicePluginDir");
        Objects.requireNonNull(dra, "dra");
        Objects.requireNonNull(kubeApi, "kubeApi");
        nodeName = nodeName.filter(n -> !n.isBlank());
        Objects.requireNonNull(rescanInterval, "rescanInterval");
        Objects.requireNonNull(uevents, "uevents");
        Objects.requireNonNull(metricsAddress, "metricsAddress");
        Objects.requireNonNull(probeAddress, "probeAddress");
        Objects.requireNonNull(vgpu, "vgpu");
        Objects.requireNonNull(version, "version");
    }

    /** Whether the options ask for the Kubernetes API: {@code --kubevirt auto}, or a resource routed to DRA. */
    public boolean usesApi() {
        return followKubeVirt || dra.enabled();
    }

    /** The full rescan period: {@code --rescan-interval} when given, else the default for whether uevents arrive. */
    public Duration rescanPeriod(boolean ueventsArrive) {
        return rescanInterval.orElse(ueventsArrive ? RESCAN_WITH_UEVENTS : RESCAN_WITHOUT_UEVENTS);
    }

    /** How logs name the local configuration: {@code --config <file>} or the default naming. */
    String localDescription() {
        return config.map(c -> "--config " + c).orElse("the default NVIDIA naming");
    }
}
