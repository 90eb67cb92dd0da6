package io.vfiodp.dra.classes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.triggers.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** serve reads, by name, the DeviceClass each resource routed to DRA needs, and says when one is missing and when it is there. */
class DeviceClassMonitorTest {

    private static final String DRIVER = "vfio-device-plugin.io";
    private static final ResourceName T4 = ResourceName.of("nvidia.com/TU104GL_TESLA_T4");
    private static final ExtendedResourceClass T4_CLASS = ((ExtendedResourceClasses.Named) ExtendedResourceClasses.of(DRIVER, T4)).deviceClass();

    private final MockKubeApi api = MockKubeApi.start();
    private final Worker thread = Worker.start("class-monitor-test");
    private final List<Map<ResourceName, ClassVerdict>> told = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        thread.close();
        api.close();
    }

    private DeviceClassMonitor monitor(Duration period) {
        return new DeviceClassMonitor(api.client(), DRIVER, thread, period, (before, now) -> told.add(now));
    }

    private static SortedMap<ResourceName, ClassVerdict> only(ClassVerdict v) {
        return new TreeMap<>(Map.of(T4, v));
    }

    @Test
    void aRoutedResourceWhoseClassIsMissingIsToldAtOnce() {
        try (DeviceClassMonitor m = monitor(Duration.ofHours(1))) {
            m.watch(new TreeSet<>(List.of(T4)));

            await().atMost(Duration.ofSeconds(30)).until(() -> !told.isEmpty());
            assertThat(told).containsExactly(only(new ClassVerdict.Missing(T4_CLASS.name())));
        }
    }

    @Test
    void theClassAppliedLaterIsFoundAtTheNextPeriodAndToldOnce() {
        try (DeviceClassMonitor m = monitor(Duration.ofMillis(100))) {
            m.watch(new TreeSet<>(List.of(T4)));
            await().atMost(Duration.ofSeconds(30)).until(() -> !told.isEmpty());

            api.client().dynamicResourceAllocation().v1().deviceClasses().resource(T4_CLASS.toDeviceClass()).create();

            await().atMost(Duration.ofSeconds(30)).until(() -> told.size() == 2);
            assertThat(told).containsExactly(only(new ClassVerdict.Missing(T4_CLASS.name())), only(new ClassVerdict.Ready(T4_CLASS.name())));
        }
    }

    @Test
    void theSameResourcesAgainReadNothingNewAndNoResourceLeftClearsTheVerdicts() {
        try (DeviceClassMonitor m = monitor(Duration.ofHours(1))) {
            api.client().dynamicResourceAllocation().v1().deviceClasses().resource(T4_CLASS.toDeviceClass()).create();
            m.watch(new TreeSet<>(List.of(T4)));
            await().atMost(Duration.ofSeconds(30)).until(() -> told.size() == 1);
            int requests = api.server().getRequestCount();

            m.watch(new TreeSet<>(List.of(T4)));
            m.watch(new TreeSet<>());

            await().atMost(Duration.ofSeconds(30)).until(() -> told.size() == 2);
            assertThat(told.get(1)).isEmpty();
            assertThat(api.server().getRequestCount()).isEqualTo(requests);
        }
    }
}
