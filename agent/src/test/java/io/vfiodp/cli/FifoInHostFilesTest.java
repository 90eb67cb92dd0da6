package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.fixtures.Trees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code doctor} and {@code inventory} on a copy of a fixture node where FIFOs (made by mkfifo)
 * stand in place of files they read: sysfs attributes, {@code /proc/interrupts}, the
 * configuration, pci.ids. Opening one to read would wait for a writer that never comes; each
 * command ends and names the file instead.
 */
class FifoInHostFilesTest {

    /** Far above what either command takes on a fixture; only turns a hang into a failure. */
    private static final Duration HANG_GUARD = Duration.ofSeconds(60);
    private static final String T4 = "sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0";
    private static final String FIFO = "is a FIFO (named pipe)";

    @TempDir Path temp;
    private Path node;

    @BeforeEach
    void copyNodeWithFifos() throws IOException {
        node = temp.resolve("node");
        Trees.copy(SysfsFixtures.committedRoot().resolve("doctor-ready"), node);
        for (String file : List.of(T4 + "/numa_node", T4 + "/reset_method", "proc/interrupts")) Trees.replaceWithFifo(node.resolve(file));
    }

    private InventoryCommandTest.Run run(String command, String... extra) {
        List<String> args = new ArrayList<>(List.of(command,
                "--sysfs-root", node.resolve("sys").toString(),
                "--dev-root", node.resolve("dev").toString()));
        if (command.equals("doctor")) {
            args.addAll(List.of("--proc-root", node.resolve("proc").toString(), "--device-plugin-dir", "/nonexistent/device-plugins",
                    "--dra-registry-dir", "/nonexistent/plugins_registry", "--cdi-dir", "/nonexistent/cdi", "--kubevirt", "off"));
        }
        args.addAll(List.of(extra));
        if (!args.contains("--pci-ids")) args.addAll(List.of("--pci-ids", InventoryCommandTest.PCI_IDS.toString()));
        return assertTimeoutPreemptively(HANG_GUARD, () -> InventoryCommandTest.run(args.toArray(String[]::new)));
    }

    @Test
    void doctorEndsAndNamesEachFifo() {
        InventoryCommandTest.Run run = run("doctor");

        assertThat(run.out()).contains("bus/pci/devices/0000:18:00.0/numa_node: " + FIFO,
                node.resolve("sys/bus/pci/devices/0000:18:00.0/reset_method") + ": " + FIFO,
                node.resolve("proc/interrupts") + ": " + FIFO);
    }

    @Test
    void inventoryEndsAndNamesTheFifo() {
        InventoryCommandTest.Run run = run("inventory");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out() + run.err()).contains("bus/pci/devices/0000:18:00.0/numa_node: " + FIFO);
    }

    /** A FIFO named {@code name} in the test's directory. */
    private Path fifo(String name) throws IOException {
        Path file = Files.writeString(temp.resolve(name), "");
        Trees.replaceWithFifo(file);
        return file;
    }

    @Test
    void aFifoForTheConfigurationIsRefusedNamingIt() throws IOException {
        Path config = fifo("config.yaml");

        InventoryCommandTest.Run run = run("inventory", "--config", config.toString());

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err()).contains("config file " + config + ": " + FIFO + ", not a regular file");
    }

    @Test
    void aFifoForPciIdsIsRefusedNamingIt() throws IOException {
        Path pciIds = fifo("pci.ids");

        InventoryCommandTest.Run run = run("inventory", "--pci-ids", pciIds.toString());

        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err()).contains(pciIds + ": " + FIFO + ", not a regular file");
    }
}
