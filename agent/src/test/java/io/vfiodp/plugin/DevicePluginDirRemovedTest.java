package io.vfiodp.plugin;

import static io.vfiodp.plugin.Devices.pci;
import static io.vfiodp.plugin.Devices.resource;
import static io.vfiodp.plugin.Devices.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device-plugin directory removed under a running plugin and created again (a node reset, a
 * kubelet reinstall). The safety check is set to an hour here, so only the directory watch can
 * make the plugin notice anything in time.
 */
class DevicePluginDirRemovedTest {

    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir Path temp;

    @Test
    void dirRemovedAndCreatedAgainIsWatchedAgainSoLaterKubeletRestartsShowAtOnce() throws Exception {
        Path dir = Files.createDirectories(temp.resolve("device-plugins"));
        PluginSettings settings = new PluginSettings(dir, Duration.ofHours(1), PluginSettings.DEFAULT_REGISTRATION_TIMEOUT,
                PluginSettings.DEFAULT_BACKOFF);
        KubeletSimulator kubelet = KubeletSimulator.start(dir);
        try (ServedPlugins runtime = ServedPlugins.start(settings, Duration.ofHours(1), () -> state(resource(T4, pci("0000:3b:00.0", 12, 0))))) {
            kubelet.awaitRegistrations(List.of(T4), 1, WAIT);
            ProcessLevels before = ProcessLevels.now();

            kubelet.close();
            removeWhileThePluginMayStillWriteInIt(dir);
            // Back only once the watch waits for it through the parent: the path under test.
            await("the watch moved to the parent of " + dir).atMost(WAIT)
                    .untilAsserted(() -> assertThat(ProcessLevels.inotifyWatchesOn(temp)).as("inotify watches on " + temp).isEqualTo(1));
            Files.createDirectories(dir);
            kubelet = KubeletSimulator.start(dir);
            kubelet.awaitRegistrations(List.of(T4), 1, WAIT);

            long t0 = System.nanoTime();
            kubelet.restart();
            kubelet.awaitRegistrations(List.of(T4), 2, WAIT);
            System.out.printf("re-registration after a kubelet restart, once the device-plugin dir came back: %d ms%n",
                    (System.nanoTime() - t0) / 1_000_000);
            assertThat(ProcessLevels.now().inotifyWatches()).as("the directory watched again, its parent no longer").isEqualTo(before.inotifyWatches());
            assertThat(ProcessLevels.inotifyWatchesOn(dir)).as("inotify watches on " + dir).isEqualTo(1);
            assertThat(ProcessLevels.inotifyWatchesOn(temp)).as("inotify watches on " + temp).isZero();
        } finally {
            kubelet.close();
        }
    }

    /**
     * As {@code rm -rf} of a node reset: the plugin answers kubelet.sock's removal by restarting its
     * server, whose new socket can appear in the directory while the walk deletes it; so again.
     */
    private static void removeWhileThePluginMayStillWriteInIt(Path dir) {
        await(dir + " removed").atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                .ignoreExceptionsMatching(e -> e instanceof DirectoryNotEmptyException || e instanceof NoSuchFileException)
                .untilAsserted(() -> Trees.deleteRecursively(dir));
    }
}
