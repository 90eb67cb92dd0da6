package io.vfiodp.dra;

import io.vfiodp.dra.model.NumaForm;
import io.vfiodp.triggers.Backoff;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How the DRA driver runs.
 *
 * @param driverName      the driver's name in ResourceSlices, claims and CDI kinds; a DNS subdomain of at
 *                        most 63 characters, lower case ({@code DriverNameMaxLength} of {@code resource.k8s.io/v1})
 * @param nodeName        this node: the pool's name and the slices' {@code spec.nodeName}
 * @param registryDir     where the kubelet's plugin watcher looks for registration sockets
 * @param pluginDir       this driver's own directory: the DRA service socket, the checkpoint and the
 *                        metadata files; the kubelet dials the socket and the container runtime mounts
 *                        the files by these paths, so it must be the same inside and outside the pod
 * @param cdiDir          where container runtimes read CDI specs
 * @param safetySweep     period of the sweep that backs up the socket-directory watch
 * @param healthHeartbeat period at which the health stream repeats the device list; the kubelet takes
 *                        a device it has not heard of for 30 s as Unknown
 * @param sliceResync     period at which the ResourceSlices are read back (by name: a GET each) and rewritten when they
 *                        differ; besides each registration, this catches a kubelet start whose removal of the
 *                        node's slices lands after our registration
 * @param backoff         waits between failed attempts (binding sockets, writing slices)
 * @param numaForm        how {@code resource.kubernetes.io/numaNode} is published: scalar, or the list made from the host's SLIT
 */
public record DraSettings(String driverName, String nodeName, Path registryDir, Path pluginDir, Path cdiDir,
                          Duration safetySweep, Duration healthHeartbeat, Duration sliceResync, Backoff backoff, NumaForm numaForm) {

    public static final Path REGISTRY_DIR = Path.of("/var/lib/kubelet/plugins_registry");
    public static final Path PLUGINS_DIR = Path.of("/var/lib/kubelet/plugins");
    public static final Path CDI_DIR = Path.of("/var/run/cdi");
    public static final String DEFAULT_DRIVER = "vfio-device-plugin.io";

    /** {@code sun_path} holds 108 bytes with the terminating NUL. */
    static final int MAX_SOCKET_PATH = 107;
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    public DraSettings {
        Objects.requireNonNull(driverName, "driverName");
        driverNameProblem(driverName).ifPresent(problem -> {
            throw new IllegalArgumentException(problem);
        });
        Objects.requireNonNull(nodeName, "nodeName");
        if (nodeName.isEmpty() || nodeName.length() > 253 || !DNS_SUBDOMAIN.matcher(nodeName).matches()) {
            throw new IllegalArgumentException("node name '" + nodeName + "' is not a DNS subdomain: it names this node's DRA pool");
        }
        Objects.requireNonNull(registryDir, "registryDir");
        Objects.requireNonNull(pluginDir, "pluginDir");
        Objects.requireNonNull(cdiDir, "cdiDir");
        requirePositive(safetySweep, "safety sweep interval");
        requirePositive(healthHeartbeat, "health heartbeat");
        requirePositive(sliceResync, "slice resync interval");
        Objects.requireNonNull(backoff, "backoff");
        Objects.requireNonNull(numaForm, "numaForm");
        for (Path socket : List.of(registryDir.resolve(driverName + "-reg.sock"), pluginDir.resolve("dra.sock"))) {
            int bytes = socket.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8).length;
            if (bytes > MAX_SOCKET_PATH) {
                throw new IllegalArgumentException("DRA socket path " + socket + " is " + bytes + " bytes long; unix sockets allow "
                        + MAX_SOCKET_PATH + ": use a shorter directory");
            }
        }
    }

    /** Why {@code name} cannot name a DRA driver, or empty when it can. */
    public static Optional<String> driverNameProblem(String name) {
        if (name.length() > 63 || !DNS_SUBDOMAIN.matcher(name).matches()) {
            return Optional.of("DRA driver name '" + name + "' is not a lower-case DNS subdomain of at most 63 characters");
        }
        return Optional.empty();
    }

    /** The kubelet's standard directories, {@code /var/lib/kubelet/plugins/<driver>} and {@code /var/run/cdi}. */
    public static DraSettings defaults(String driverName, String nodeName) {
        return new DraSettings(driverName, nodeName, REGISTRY_DIR, PLUGINS_DIR.resolve(driverName), CDI_DIR,
                Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(30),
                new Backoff(Duration.ofMillis(200), Duration.ofSeconds(10)), NumaForm.SCALAR);
    }

    public DraSettings withDirs(Path registry, Path plugin, Path cdi) {
        return new DraSettings(driverName, nodeName, registry, plugin, cdi, safetySweep, healthHeartbeat, sliceResync, backoff, numaForm);
    }

    public DraSettings withPeriods(Duration check, Duration heartbeat, Duration resync) {
        return new DraSettings(driverName, nodeName, registryDir, pluginDir, cdiDir, check, heartbeat, resync, backoff, numaForm);
    }

    public DraSettings withNumaForm(NumaForm form) {
        return new DraSettings(driverName, nodeName, registryDir, pluginDir, cdiDir, safetySweep, healthHeartbeat, sliceResync, backoff, form);
    }

    /** The registration socket's file name, as Kubernetes' kubeletplugin helper names it. */
    public String registrationSocketName() {
        return driverName + "-reg.sock";
    }

    public Path registrationSocket() {
        return registryDir.resolve(registrationSocketName());
    }

    public Path draSocket() {
        return pluginDir.resolve("dra.sock");
    }

    private static void requirePositive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(what + " must be positive: " + d);
    }
}
