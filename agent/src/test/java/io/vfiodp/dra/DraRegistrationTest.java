package io.vfiodp.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.plugin.Leaks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DraRegistrationTest {

    @TempDir Path root;

    @Test
    void registersAsTheDraPluginOfItsDriverWithTheV1NodeServiceFirst() {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            DraKubeletSimulator.Registered r = h.kubelet.plugin();
            assertThat(r.socket()).isEqualTo(h.settings.registryDir().resolve("vfio-device-plugin.io-reg.sock"));
            assertThat(r.info().getType()).isEqualTo("DRAPlugin");
            assertThat(r.info().getName()).isEqualTo("vfio-device-plugin.io");
            assertThat(r.info().getEndpoint()).isEqualTo(h.settings.pluginDir().resolve("dra.sock").toAbsolutePath().toString());
            assertThat(r.info().getSupportedVersionsList()).containsExactly("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth");
            assertThat(r.service()).isEqualTo("v1.DRAPlugin");
            await().atMost(Duration.ofSeconds(30)).until(() -> h.driver.status().join().registered().equals(Optional.of(true)));
        }
    }

    @Test
    void aKubeletThatKnowsOnlyV1beta1ChoosesIt() {
        try (DraHarness h = new DraHarness(root, DraKubeletSimulator.KUBELET_133).start(DraNodes.allDra("t4-numa"))) {
            assertThat(h.kubelet.plugin().service()).isEqualTo("v1beta1.DRAPlugin");
        }
    }

    @Test
    void aRefusedRegistrationIsRecorded() {
        try (DraHarness h = new DraHarness(root, List.of("v2.DRAPlugin"))) {
            h.startDriver(DraNodes.allDra("t4-numa"));
            assertThatThrownBy(h::registerOnce).hasMessageContaining("none of services supported by the plugin");
            await().atMost(Duration.ofSeconds(30)).until(() -> h.driver.status().join().registered().equals(Optional.of(false)));
        }
    }

    @Test
    void aDeletedRegistrationSocketIsCreatedAgainAndTheKubeletRegistersItAgain() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            Path socket = h.settings.registrationSocket();
            Optional<FileIdentity> first = FileIdentity.of(socket);
            Files.delete(socket);
            await().atMost(Duration.ofSeconds(30)).until(() -> DraKubeletSimulator.isSocket(socket) && !FileIdentity.of(socket).equals(first));
            h.kubelet.restart();
            assertThat(h.registerOnce().info().getName()).isEqualTo("vfio-device-plugin.io");
        }
    }

    @Test
    void aRegistryDirectoryRemovedAndCreatedAgainGetsTheSocketBack() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            deleteTree(h.settings.registryDir());
            await().atMost(Duration.ofSeconds(30)).until(() -> h.driver.status().join().serving() == false);
            Files.createDirectories(h.settings.registryDir());
            await().atMost(Duration.ofSeconds(30)).until(() -> DraKubeletSimulator.isSocket(h.settings.registrationSocket()));
            h.kubelet.restart();
            assertThat(h.registerOnce().service()).isEqualTo("v1.DRAPlugin");
        }
    }

    @Test
    void aDeletedDraSocketIsServedAgainWithAFreshRegistration() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            Optional<FileIdentity> registration = FileIdentity.of(h.settings.registrationSocket());
            Files.delete(h.settings.draSocket());
            await().atMost(Duration.ofSeconds(30)).until(() -> DraKubeletSimulator.isSocket(h.settings.draSocket())
                    && DraKubeletSimulator.isSocket(h.settings.registrationSocket())
                    && !FileIdentity.of(h.settings.registrationSocket()).equals(registration));
            h.kubelet.restart();
            h.registerOnce();
            assertThat(h.kubelet.prepare(DraKubeletSimulator.claim("vms", "none", "uid-none")).getClaimsOrThrow("uid-none").getError())
                    .isEqualTo("ResourceClaim vms/none does not exist");
        }
    }

    @Test
    void closingRemovesBothSocketsAndEndsEveryThread() throws Exception {
        Set<Thread> before = Leaks.liveThreads();
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            h.driver.close();
            assertThat(Files.exists(h.settings.registrationSocket())).isFalse();
            assertThat(Files.exists(h.settings.draSocket())).isFalse();
        }
        Leaks.awaitNoThreadStartedSince(before, Duration.ofSeconds(30));
    }

    /** Removes {@code dir}, again when the driver re-created its socket in it during the walk. */
    static void deleteTree(Path dir) throws IOException {
        while (Files.exists(dir)) {
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            } catch (java.nio.file.DirectoryNotEmptyException | java.nio.file.NoSuchFileException raced) {
                // a socket appeared or went meanwhile: walk again
            }
        }
    }
}
