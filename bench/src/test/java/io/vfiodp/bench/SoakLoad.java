package io.vfiodp.bench;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.Device;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the soak does to the plugin while it is sampled, each on its own thread until
 * {@link #close()}: kubelet restarts (and a check that every resource registers again and its new
 * ListAndWatch stream sends a list), health flaps (a {@code /dev/vfio/<group>} node removed and
 * re-created), clients calling GetPreferredAllocation then Allocate with what it chose, and the
 * probes and scrape a kubelet and Prometheus make over HTTP. Errors go to {@link SoakErrors}.
 */
final class SoakLoad implements AutoCloseable {

    private static final Duration REREGISTRATION_WAIT = Duration.ofSeconds(30);
    private static final Duration PROBE_EVERY = Duration.ofSeconds(2);

    private final KubeletSimulator kubelet;
    private final List<String> resources;
    private final Path vfioDir;
    private final List<Integer> flapGroups;
    private final SoakSettings settings;
    private final Optional<URI> metrics;
    private final SoakErrors errors;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong allocations = new AtomicLong();
    private final AtomicLong preferred = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicLong flaps = new AtomicLong();
    private final AtomicLong probes = new AtomicLong();

    private SoakLoad(KubeletSimulator kubelet, List<String> resources, Path vfioDir, List<Integer> flapGroups, SoakSettings settings,
                     Optional<URI> metrics, SoakErrors errors) {
        this.kubelet = kubelet;
        this.resources = List.copyOf(resources);
        this.vfioDir = vfioDir;
        this.flapGroups = List.copyOf(flapGroups);
        this.settings = settings;
        this.metrics = metrics;
        this.errors = errors;
    }

    /**
     * @param vfioDir    the served node's {@code dev/vfio}
     * @param flapGroups IOMMU groups whose nodes are flapped in turn
     * @param metrics    base URI of the plugin's HTTP endpoints, when it serves them
     */
    static SoakLoad start(KubeletSimulator kubelet, List<String> resources, Path vfioDir, List<Integer> flapGroups, SoakSettings settings,
                          Optional<URI> metrics, SoakErrors errors) {
        SoakLoad load = new SoakLoad(kubelet, resources, vfioDir, flapGroups, settings, metrics, errors);
        load.spawn("soak-restarter", load::restartKubelet);
        if (!flapGroups.isEmpty()) load.spawn("soak-flapper", load::flap);
        for (int i = 0; i < settings.clients(); i++) {
            Random random = new Random(i);
            load.spawn("soak-client-" + i, () -> load.allocate(random));
        }
        metrics.ifPresent(base -> load.spawn("soak-prober", () -> load.probe(base)));
        return load;
    }

    long allocations() {
        return allocations.get();
    }

    long preferredAllocations() {
        return preferred.get();
    }

    long restarts() {
        return restarts.get();
    }

    long flaps() {
        return flaps.get();
    }

    long probes() {
        return probes.get();
    }

    private interface Activity {
        void run() throws Exception;
    }

    private void spawn(String name, Activity activity) {
        Thread t = new Thread(() -> {
            try {
                activity.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                errors.unexpected(name + " stopped: " + e);
            }
        }, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
    }

    /** Waits {@code d}; false when the load is stopping. */
    private boolean pause(Duration d) throws InterruptedException {
        return !stop.await(d.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void restartKubelet() throws Exception {
        int since = 0;
        while (pause(settings.restartEvery())) {
            int before = kubelet.registrations().size();
            checkRegisteredOnce(restarts.get(), since, before);
            kubelet.restart();
            long n = restarts.incrementAndGet();
            awaitReRegistration(n, before);
            since = before;
        }
        checkRegisteredOnce(restarts.get(), since, kubelet.registrations().size());
    }

    /**
     * Each resource registers once per kubelet start: a second Register makes the kubelet drop
     * the connection it opened for the first, failing whatever Allocate is in flight on it.
     */
    private void checkRegisteredOnce(long restart, int from, int to) {
        List<String> names = kubelet.registrations().subList(from, to).stream().map(KubeletSimulator.Registration::resourceName).toList();
        for (String r : resources) {
            long times = names.stream().filter(r::equals).count();
            if (times > 1) {
                errors.unexpected(r + " registered " + times + " times with the kubelet " + (restart == 0 ? "started first" : "after restart #" + restart));
            }
        }
    }

    private void awaitReRegistration(long restart, int registrationsBefore) throws InterruptedException {
        long deadline = System.nanoTime() + REREGISTRATION_WAIT.toNanos();
        Set<String> missing = new HashSet<>(resources);
        while (!missing.isEmpty()) {
            List<KubeletSimulator.Registration> all = kubelet.registrations();
            for (KubeletSimulator.Registration r : all.subList(registrationsBefore, all.size())) missing.remove(r.resourceName());
            if (missing.isEmpty()) break;
            if (System.nanoTime() > deadline) {
                errors.unexpected("kubelet restart #" + restart + ": " + missing + " not registered again within " + REREGISTRATION_WAIT.toSeconds() + " s");
                return;
            }
            if (!pause(Duration.ofMillis(10))) return;
        }
        for (String r : resources) {
            try {
                kubelet.watch(r).awaitUpdates(1, Duration.ofSeconds(10));
            } catch (TimeoutException | IllegalStateException e) {
                // IllegalStateException: this thread restarts the kubelet, so the registration cannot have gone since.
                errors.unexpected("kubelet restart #" + restart + ": no ListAndWatch list on the new stream: " + e.getMessage());
            }
        }
    }

    private void flap() throws Exception {
        for (int i = 0; ; i++) {
            Path node = vfioDir.resolve(Integer.toString(flapGroups.get(i % flapGroups.size())));
            Files.delete(node);
            boolean go;
            try {
                go = pause(settings.flapEvery().dividedBy(2));
            } finally {
                Files.createFile(node);
            }
            flaps.incrementAndGet();
            if (!go || !pause(settings.flapEvery().dividedBy(2))) return;
        }
    }

    private void allocate(Random random) throws InterruptedException {
        int round = 0;
        do {
            String resource = resources.get(round++ % resources.size());
            Optional<ListAndWatchResponse> listed = kubelet.latest(resource);
            List<String> healthy = listed.map(l -> l.getDevicesList().stream().filter(d -> d.getHealth().equals("Healthy")).map(Device::getID).toList())
                    .orElse(List.of());
            if (!healthy.isEmpty()) allocateOnce(resource, healthy, 1 + random.nextInt(Math.min(2, healthy.size())));
        } while (pause(settings.clientPause()));
    }

    private void allocateOnce(String resource, List<String> healthy, int size) {
        try {
            List<String> chosen = kubelet.preferredAllocation(resource, healthy, List.of(), size);
            preferred.incrementAndGet();
            if (chosen.size() > size || !healthy.containsAll(chosen)) {
                errors.unexpected("GetPreferredAllocation " + resource + " of " + size + " from " + healthy + " chose " + chosen);
                return;
            }
            if (chosen.isEmpty()) return;
            AllocateResponse response = kubelet.allocate(resource, List.of(chosen));
            Optional<String> wrong = inconsistency(response, chosen);
            if (wrong.isPresent()) errors.unexpected("Allocate " + resource + " " + chosen + ": " + wrong.get());
            else allocations.incrementAndGet();
        } catch (StatusRuntimeException e) {
            Status s = e.getStatus();
            if (s.getCode() == Status.Code.UNAVAILABLE || s.getCode() == Status.Code.CANCELLED) {
                errors.expected("call on a connection a kubelet restart closed (" + s.getCode() + ")");
            } else if (s.getCode() == Status.Code.FAILED_PRECONDITION && String.valueOf(s.getDescription()).contains(" is unhealthy")) {
                errors.expected("Allocate of a device that went unhealthy after the kubelet listed it (FAILED_PRECONDITION)");
            } else {
                errors.unexpected(resource + ": " + s.getCode() + " " + s.getDescription());
            }
        } catch (IllegalStateException e) {
            if (String.valueOf(e.getMessage()).endsWith("is not registered")) {
                errors.expected("call while the kubelet restarts (not registered yet)");
            } else {
                errors.unexpected(resource + ": " + e);
            }
        }
    }

    /** What is wrong with an Allocate answer for one container asking for {@code ids}, if anything. */
    private static Optional<String> inconsistency(AllocateResponse response, List<String> ids) {
        if (response.getContainerResponsesCount() != 1) return Optional.of(response.getContainerResponsesCount() + " container responses for 1 request");
        ContainerAllocateResponse c = response.getContainerResponses(0);
        String joined = String.join(",", ids);
        if (!c.getEnvsMap().containsValue(joined)) return Optional.of("no env var with value " + joined + " in " + c.getEnvsMap());
        if (c.getDevicesList().stream().map(DeviceSpec::getHostPath).noneMatch("/dev/vfio/vfio"::equals)) {
            return Optional.of("no /dev/vfio/vfio in " + c.getDevicesList());
        }
        return Optional.empty();
    }

    private void probe(URI base) throws InterruptedException {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            while (pause(PROBE_EVERY)) {
                for (String path : List.of("/healthz", "/readyz", "/metrics")) {
                    try {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(5)).build(),
                                HttpResponse.BodyHandlers.ofString());
                        probes.incrementAndGet();
                        if (path.equals("/readyz") && r.statusCode() == 503) errors.expected("/readyz 503 while resources re-register");
                        else if (r.statusCode() != 200) errors.unexpected("GET " + path + ": HTTP " + r.statusCode() + " " + r.body().strip());
                    } catch (IOException e) {
                        errors.unexpected("GET " + path + ": " + e);
                    }
                }
            }
        }
    }

    /** Stops every activity and waits for it; a flapped node is back in place when this returns. */
    @Override
    public void close() {
        stop.countDown();
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(REREGISTRATION_WAIT.toSeconds() + 15));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (t.isAlive()) errors.unexpected(t.getName() + " did not stop");
        }
    }
}
