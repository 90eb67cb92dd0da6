package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.TcpProxy;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.kube.kubevirt.model.KubeVirtStatus;
import io.vfiodp.policy.config.DesiredMdevTypes;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.triggers.Backoff;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The watcher against a mock API server with real watches: what it emits, and when it keeps quiet. */
class KubeVirtConfigWatcherTest {

    static final Backoff FAST = new Backoff(Duration.ofMillis(50), Duration.ofMillis(400));
    static final String NODE = "gpu-node-1";

    private MockKubeApi api;
    private KubernetesClient watcherClient;
    private KubeVirtConfigWatcher watcher;
    private final ConfigRecorder recorder = new ConfigRecorder();

    @AfterEach
    void tearDown() {
        if (watcher != null) watcher.close();
        if (watcherClient != null) watcherClient.close();
        if (api != null) api.close();
    }

    static final String T4 = """
            pciHostDevices:
            - pciVendorSelector: 10DE:1EB8
              resourceName: nvidia.com/TU104GL_TESLA_T4
              externalResourceProvider: true
            """;

    static final PciHostDevice T4_ENTRY = new PciHostDevice("10DE:1EB8", "nvidia.com/TU104GL_TESLA_T4", true);

    /** Waits until the watcher has told of {@code n} attempts to read the CRs that failed (those that succeeded pass by). */
    private static void awaitFailedAttempts(LinkedBlockingQueue<Boolean> readable, int n) throws InterruptedException {
        for (int failed = 0; failed < n; ) {
            Boolean r = readable.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("an attempt to read the CRs within 10 s").isNotNull();
            if (!r) failed++;
        }
    }

    private void startWatcher(Optional<String> node) {
        watcherClient = MockKubeApi.clientFor(api.port());
        watcher = new KubeVirtConfigWatcher(watcherClient, node, recorder, () -> { }, readable -> { }, FAST);
        watcher.start();
    }

    private void create(KubeVirt kv) {
        api.client().resource(kv).create();
    }

    private void editPermitted(String yaml) {
        api.client().resources(KubeVirt.class).inNamespace("kubevirt").withName("kubevirt").edit(kv -> {
            kv.getSpec().getConfiguration().setPermittedHostDevices(KubeVirtCrs.permitted(yaml));
            return kv;
        });
    }

    @Test
    void withoutCrItReportsNoCr() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        startWatcher(Optional.empty());

        assertThat(recorder.next()).isEqualTo(new KubeVirtConfig.NoCr());
    }

    @Test
    void crCreatedAfterStartIsReported() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        startWatcher(Optional.empty());
        recorder.next();

        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));

        assertThat(recorder.next()).isEqualTo(new KubeVirtConfig.FromCr(new CrRef("kubevirt", "kubevirt"),
                Optional.of(new io.vfiodp.policy.config.PermittedHostDevices(List.of(T4_ENTRY), List.of())), DesiredMdevTypes.NONE));
    }

    @Test
    void addedEntryIsReported() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));
        startWatcher(Optional.empty());
        recorder.next();

        editPermitted(T4 + """
                mediatedDevices:
                - mdevNameSelector: GRID T4-1Q
                  resourceName: nvidia.com/GRID_T4-1Q
                  externalResourceProvider: true
                """);

        assertThat(recorder.nextFromCr().permittedHostDevices()).contains(new io.vfiodp.policy.config.PermittedHostDevices(List.of(T4_ENTRY),
                List.of(new MediatedHostDevice("GRID T4-1Q", "nvidia.com/GRID_T4-1Q", true))));
    }

    @Test
    void removedEntryIsReported() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4 + """
                - pciVendorSelector: 10DE:2236
                  resourceName: nvidia.com/GA102GL_A10
                  externalResourceProvider: true
                """));
        startWatcher(Optional.empty());
        assertThat(recorder.nextFromCr().permittedHostDevices().orElseThrow().pciHostDevices()).hasSize(2);

        editPermitted(T4);

        assertThat(recorder.nextFromCr().permittedHostDevices()).contains(new io.vfiodp.policy.config.PermittedHostDevices(List.of(T4_ENTRY), List.of()));
    }

    @Test
    void renamedResourceIsReported() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));
        startWatcher(Optional.empty());
        recorder.next();

        editPermitted(T4.replace("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/T4"));

        assertThat(recorder.nextFromCr().permittedHostDevices().orElseThrow().pciHostDevices())
                .containsExactly(new PciHostDevice("10DE:1EB8", "nvidia.com/T4", true));
    }

    @Test
    void selectorCaseAndMdevSpellingArePassedOnAsWritten() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));
        startWatcher(Optional.empty());
        recorder.next();

        editPermitted("""
                pciHostDevices:
                - pciVendorSelector: 10de:1eb8
                  resourceName: nvidia.com/TU104GL_TESLA_T4
                  externalResourceProvider: true
                mediatedDevices:
                - mdevNameSelector: GRID_T4-1Q
                  resourceName: nvidia.com/GRID_T4-1Q
                  externalResourceProvider: true
                """);

        assertThat(recorder.nextFromCr().permittedHostDevices()).contains(new io.vfiodp.policy.config.PermittedHostDevices(
                List.of(new PciHostDevice("10de:1eb8", "nvidia.com/TU104GL_TESLA_T4", true)),
                List.of(new MediatedHostDevice("GRID_T4-1Q", "nvidia.com/GRID_T4-1Q", true))));
    }

    @Test
    void changesOutsideWhatWeReadAreNotReported() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));
        startWatcher(Optional.empty());
        recorder.next();

        var kvs = api.client().resources(KubeVirt.class).inNamespace("kubevirt").withName("kubevirt");
        kvs.edit(kv -> {
            kv.getSpec().getAdditionalProperties().put("imagePullPolicy", "Always");
            return kv;
        });
        kvs.editStatus(kv -> {
            kv.setStatus(new KubeVirtStatus());
            kv.getStatus().setPhase("Deploying");
            return kv;
        });

        // the watch delivers events in order: had the edits above emitted anything, it would come before this change
        editPermitted(T4.replace("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/AFTER"));

        assertThat(recorder.nextFromCr().permittedHostDevices().orElseThrow().pciHostDevices())
                .containsExactly(new PciHostDevice("10DE:1EB8", "nvidia.com/AFTER", true));
        assertThat(kvs.get().getSpec().getAdditionalProperties()).containsEntry("imagePullPolicy", "Always");
        assertThat(kvs.get().getStatus().getPhase()).isEqualTo("Deploying");
    }

    @Test
    void deletedCrIsReportedAsNoCr() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));
        startWatcher(Optional.empty());
        recorder.next();

        api.client().resources(KubeVirt.class).inNamespace("kubevirt").withName("kubevirt").delete();

        assertThat(recorder.next()).isEqualTo(new KubeVirtConfig.NoCr());
    }

    @Test
    void firstCreatedOfTwoCrsIsUsed() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        KubeVirt first = api.client().resource(KubeVirtCrs.cr("zz-first", "kubevirt", T4)).create();
        // creationTimestamp has whole seconds, as on a real API server: the second CR must be created a second later
        Instant firstCreated = Instant.parse(first.getMetadata().getCreationTimestamp());
        await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().truncatedTo(ChronoUnit.SECONDS).isAfter(firstCreated));
        create(KubeVirtCrs.cr("aa-second", "kubevirt", T4.replace("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/OTHER")));
        startWatcher(Optional.empty());

        KubeVirtConfig.FromCr config = recorder.nextFromCr();

        assertThat(config.source()).isEqualTo(new CrRef("zz-first", "kubevirt"));
        assertThat(config.permittedHostDevices().orElseThrow().pciHostDevices()).containsExactly(T4_ENTRY);
    }

    @Test
    void secondCrAppearingChangesNothing() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));
        startWatcher(Optional.empty());
        recorder.next();

        create(KubeVirtCrs.cr("other", "kubevirt", T4.replace("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/OTHER")));
        // the watch delivers events in order: had the second CR emitted anything, it would come before this change
        editPermitted(T4.replace("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/AFTER"));

        KubeVirtConfig.FromCr next = recorder.nextFromCr();
        assertThat(next.source()).isEqualTo(new CrRef("kubevirt", "kubevirt"));
        assertThat(next.permittedHostDevices().orElseThrow().pciHostDevices())
                .containsExactly(new PciHostDevice("10DE:1EB8", "nvidia.com/AFTER", true));
    }

    @Test
    void apiUnavailableAtStartReportsNothingUntilItAnswers() throws Exception {
        int port = MockKubeApi.freePort();
        watcherClient = MockKubeApi.clientFor(port);
        LinkedBlockingQueue<Boolean> readable = new LinkedBlockingQueue<>();
        watcher = new KubeVirtConfigWatcher(watcherClient, Optional.empty(), recorder, () -> { }, readable::add, FAST);
        watcher.start();

        // two attempts to list have failed, and neither emitted anything
        awaitFailedAttempts(readable, 2);
        assertThat(recorder.poll(Duration.ZERO)).isNull();

        api = MockKubeApi.startOn(port).withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));

        KubeVirtConfig first = recorder.next();
        if (first instanceof KubeVirtConfig.NoCr) first = recorder.next(); // listed between CRD and CR creation
        assertThat(((KubeVirtConfig.FromCr) first).permittedHostDevices().orElseThrow().pciHostDevices()).containsExactly(T4_ENTRY);
    }

    @Test
    void apiGoingAwayKeepsTheConfigAndChangesArePickedUpWhenItReturns() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));
        try (TcpProxy link = new TcpProxy(api.port())) {
            watcherClient = MockKubeApi.clientFor(link.port());
            watcher = new KubeVirtConfigWatcher(watcherClient, Optional.empty(), recorder, () -> { }, readable -> { }, FAST);
            watcher.start();
            recorder.next();

            link.cut();
            editPermitted(T4.replace("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/UNSEEN"));
            // the watcher has tried twice to come back: the configuration read before stays, nothing is emitted
            link.awaitRefused(2);
            assertThat(recorder.poll(Duration.ZERO)).isNull();

            link.restore();
            // the mock server keeps no watch history: edit until the resumed watch reports an edit
            AtomicInteger edits = new AtomicInteger();
            AtomicReference<io.vfiodp.policy.config.PermittedHostDevices> expected = new AtomicReference<>();
            AtomicReference<KubeVirtConfig> last = new AtomicReference<>(await().atMost(ConfigRecorder.WAIT).until(() -> {
                String name = "nvidia.com/T4-" + edits.getAndIncrement();
                editPermitted(T4.replace("nvidia.com/TU104GL_TESLA_T4", name));
                expected.set(new io.vfiodp.policy.config.PermittedHostDevices(List.of(new PciHostDevice("10DE:1EB8", name, true)), List.of()));
                return recorder.poll(Duration.ofMillis(250));
            }, Objects::nonNull));
            // then the last edit's configuration, however long the edits before it take to arrive
            await().atMost(ConfigRecorder.WAIT).untilAsserted(() -> {
                for (KubeVirtConfig c; (c = recorder.poll(Duration.ZERO)) != null; ) last.set(c);
                assertThat(last.get()).isInstanceOfSatisfying(KubeVirtConfig.FromCr.class,
                        c -> assertThat(c.permittedHostDevices()).contains(expected.get()));
            });
        }
    }

    @Test
    void forbiddenListIsRetriedUntilAllowed() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));
        api.server().expect().get().withPath("/apis/kubevirt.io/v1/kubevirts?resourceVersion=0")
                .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden")
                        .withMessage("kubevirts.kubevirt.io is forbidden: User \"system:serviceaccount:gpu:vfio-dp\" cannot list resource").build())
                .times(3);
        startWatcher(Optional.empty());

        KubeVirtConfig.FromCr config = recorder.nextFromCr();

        assertThat(config.permittedHostDevices().orElseThrow().pciHostDevices()).containsExactly(T4_ENTRY);
        assertThat(api.server().getRequestCount()).isGreaterThanOrEqualTo(4);
    }

    @Test
    void readabilityFollowsTheAnswersToTheCrList() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(KubeVirtCrs.cr("kubevirt", "kubevirt", T4));
        api.server().expect().get().withPath("/apis/kubevirt.io/v1/kubevirts?resourceVersion=0")
                .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden").withMessage("forbidden").build())
                .once();
        LinkedBlockingQueue<Boolean> readable = new LinkedBlockingQueue<>();
        watcherClient = MockKubeApi.clientFor(api.port());
        watcher = new KubeVirtConfigWatcher(watcherClient, Optional.empty(), recorder, () -> { }, readable::add, FAST);
        watcher.start();

        recorder.nextFromCr();

        assertThat(readable.poll(10, TimeUnit.SECONDS)).isFalse();
        assertThat(readable.poll(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void apiWithoutKubeVirtIsReadableAsNoCr() throws Exception {
        api = MockKubeApi.start();
        api.server().expect().get().withPath("/apis/kubevirt.io/v1/kubevirts?resourceVersion=0")
                .andReturn(404, new StatusBuilder().withCode(404).withReason("NotFound").withMessage("the server could not find the requested resource").build())
                .always();
        LinkedBlockingQueue<Boolean> readable = new LinkedBlockingQueue<>();
        watcherClient = MockKubeApi.clientFor(api.port());
        watcher = new KubeVirtConfigWatcher(watcherClient, Optional.empty(), recorder, () -> { }, readable::add, FAST);
        watcher.start();

        assertThat(recorder.next()).isEqualTo(new KubeVirtConfig.NoCr());
        assertThat(readable.poll(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void apiWithoutKubeVirtCountsAsNoCr() throws Exception {
        api = MockKubeApi.start();
        api.server().expect().get().withPath("/apis/kubevirt.io/v1/kubevirts?resourceVersion=0")
                .andReturn(404, new StatusBuilder().withCode(404).withReason("NotFound").withMessage("the server could not find the requested resource").build())
                .always();
        startWatcher(Optional.empty());

        assertThat(recorder.next()).isEqualTo(new KubeVirtConfig.NoCr());
    }

    @Test
    void firstFailedAttemptSettlesTheStartWithoutAConfiguration() throws Exception {
        watcherClient = MockKubeApi.clientFor(MockKubeApi.freePort());
        watcher = new KubeVirtConfigWatcher(watcherClient, Optional.empty(), recorder, () -> { }, readable -> { }, FAST);
        watcher.start();

        watcher.firstSettled().get(10, TimeUnit.SECONDS);

        assertThat(recorder.poll(Duration.ZERO)).isNull();
    }

    private static final String NODE_MDEV = """
            apiVersion: kubevirt.io/v1
            kind: KubeVirt
            metadata: {name: kubevirt, namespace: kubevirt}
            spec:
              configuration:
                mediatedDevicesConfiguration:
                  mediatedDeviceTypes: [nvidia-222]
                  nodeMediatedDeviceTypes:
                  - nodeSelector: {nvidia.com/gpu.product: Tesla-T4}
                    mediatedDeviceTypes: [nvidia-230]
                  - nodeSelector: {nvidia.com/gpu.product: A10}
                    mediatedDeviceTypes: [nvidia-500]
            """;

    @Test
    void nodeLabelsSelectNodeMediatedDeviceTypesAndRelabelingIsFollowed() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE)
                .withLabels(Map.of("nvidia.com/gpu.product", "Tesla-T4")).endMetadata().build()).create();
        api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("other-node")
                .withLabels(Map.of("nvidia.com/gpu.product", "A10")).endMetadata().build()).create();
        create(Serialization.unmarshal(NODE_MDEV, KubeVirt.class));
        startWatcher(Optional.of(NODE));

        assertThat(recorder.nextFromCr().mdevTypes()).isEqualTo(new DesiredMdevTypes(List.of("nvidia-230"), true, "nodeMediatedDeviceTypes[0]"));

        api.client().nodes().withName(NODE).edit(n -> {
            n.getMetadata().getLabels().put("nvidia.com/gpu.product", "A10");
            return n;
        });

        assertThat(recorder.nextFromCr().mdevTypes()).isEqualTo(new DesiredMdevTypes(List.of("nvidia-500"), true, "nodeMediatedDeviceTypes[1]"));
    }

    @Test
    void unknownNodeMatchesNoLabels() throws Exception {
        api = MockKubeApi.start().withKubeVirtCrd();
        create(Serialization.unmarshal(NODE_MDEV, KubeVirt.class));
        startWatcher(Optional.of(NODE));

        assertThat(recorder.nextFromCr().mdevTypes()).isEqualTo(new DesiredMdevTypes(List.of("nvidia-222"), true, "mediatedDeviceTypes"));
    }
}
