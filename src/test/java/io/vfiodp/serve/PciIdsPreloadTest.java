package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.PciFunction;
import io.vfiodp.host.pciids.PciIds;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PciIdsPreloadTest {

    static final int NVIDIA = PciFunction.VENDOR_NVIDIA;

    static Path file(Path dir) throws IOException {
        return Files.writeString(dir.resolve("pci.ids"), """
                #\tVersion: 2026.11.01
                8086  Intel Corporation
                \t1520  I350 Ethernet Controller Virtual Function
                10de  NVIDIA Corporation
                \t1eb8  TU104GL [Tesla T4]
                """);
    }

    @Test
    void theFirstAskCoveredByThePolicysVendorsGetsThePreloadedCopyAndLaterAsksReadAgain(@TempDir Path dir) throws Exception {
        Path file = file(dir);
        try (PciIdsPreload preload = PciIdsPreload.start(Optional.of(file))) {
            PciIds first = preload.load(Set.of(NVIDIA));
            PciIds second = preload.load(Set.of(NVIDIA));

            assertThat(first.deviceVendors()).contains(Set.of(NVIDIA));
            assertThat(first.deviceName(NVIDIA, 0x1eb8)).contains("TU104GL [Tesla T4]");
            assertThat(first.origin()).isEqualTo(new PciIds.Origin(file.toString(), Optional.of("2026.11.01"),
                    Optional.of("given explicitly, used whatever its version")));
            assertThat(second).isNotSameAs(first);
            assertThat(second.origin()).isEqualTo(first.origin());
        }
    }

    @Test
    void aHostWithoutNvidiaGetsThePreloadedCopyToo(@TempDir Path dir) throws Exception {
        try (PciIdsPreload preload = PciIdsPreload.start(Optional.of(file(dir)))) {
            PciIds ids = preload.load(Set.of());

            assertThat(ids.deviceVendors()).contains(Set.of(NVIDIA));
            assertThat(ids.vendorName(0x8086)).contains("Intel Corporation");
        }
    }

    @Test
    void anAskBeyondThePolicysVendorsReadsTheFileAgainForThem(@TempDir Path dir) throws Exception {
        try (PciIdsPreload preload = PciIdsPreload.start(Optional.of(file(dir)))) {
            PciIds ids = preload.load(Set.of(NVIDIA, 0x8086));

            assertThat(ids.deviceVendors()).contains(Set.of(NVIDIA, 0x8086));
            assertThat(ids.deviceName(0x8086, 0x1520)).contains("I350 Ethernet Controller Virtual Function");
        }
    }

    @Test
    void aFileThatCannotBeReadFailsTheAskWithTheMessageOfTheRead(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope.ids");
        try (PciIdsPreload preload = PciIdsPreload.start(Optional.of(missing))) {
            assertThatThrownBy(() -> preload.load(Set.of(NVIDIA))).isInstanceOf(IOException.class)
                    .hasMessage("cannot read pci.ids database " + missing + ": no such file");
            assertThatThrownBy(() -> preload.load(Set.of(NVIDIA))).as("asked again: read again").isInstanceOf(IOException.class)
                    .hasMessage("cannot read pci.ids database " + missing + ": no such file");
        }
    }

    @Test
    void closeWaitsForTheReaderThreadEvenWhenNothingWasAsked(@TempDir Path dir) throws Exception {
        PciIdsPreload preload = PciIdsPreload.start(Optional.of(file(dir)));

        preload.close();

        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals(PciIdsPreload.THREAD) && t.isAlive());
    }

    @Test
    void closeWaitsForAReaderThatHangsOnlySoLong(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("pci.ids");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor()).isZero();
        // opening a FIFO with no writer blocks, as a read from a hung mount does
        PciIdsPreload preload = PciIdsPreload.start(Optional.of(fifo));

        assertThat(CompletableFuture.runAsync(() -> {
            try {
                preload.close();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        })).succeedsWithin(PciIdsPreload.CLOSE_WAIT.plusSeconds(10));
        assertThat(preload.reader().isAlive()).as("the reader, still blocked").isTrue();

        try (OutputStream writer = Files.newOutputStream(fifo)) {
            writer.write("10de  NVIDIA Corporation\n".getBytes(StandardCharsets.US_ASCII));
        }
        assertThat(preload.reader().join(Duration.ofSeconds(10))).as("the reader ended once the file could be read").isTrue();
    }
}
