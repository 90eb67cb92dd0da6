package io.vfiodp.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.serve.HostTree;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scans of the passes: full ones, or, while uevents are tracked, the devices they named read again. */
class HostScansTest {

    private static final PciAddress T4 = PciAddress.parse("0000:1a:00.0");

    @TempDir Path temp;
    private HostTree host;
    private SysfsScanner scanner;
    private HostScans scans;

    @BeforeEach
    void copyTheNode() throws Exception {
        host = HostTree.copy(Path.of("src/test/resources/sysfs-fixtures/t4-numa"), temp.resolve("node"));
        scanner = new SysfsScanner(host.sys(), host.dev());
        scans = new HostScans(scanner);
    }

    private Optional<String> driver(HostSnapshot s) {
        return s.function(T4).orElseThrow().driver();
    }

    @Test
    void withoutUeventsEveryPassReadsEverything() throws Exception {
        scans.get();
        host.bind(T4.toString(), "nvidia");

        assertThat(driver(scans.get())).contains("nvidia");
        assertThat(scans.counts()).isEqualTo(new HostScans.Counts(2, 0));
    }

    @Test
    void whileTrackedAPassReadsTheDevicesNamedAndGivesWhatAFullScanGives() throws Exception {
        scans.tracking(true);
        scans.get();
        host.bind(T4.toString(), "nvidia");
        host.removeGroupNode(24);
        scans.changed(ChangedDevices.function(T4));

        HostSnapshot after = scans.get();

        assertThat(driver(after)).contains("nvidia");
        assertThat(after).isEqualTo(scanner.scan());
        assertThat(scans.counts()).isEqualTo(new HostScans.Counts(1, 1));
    }

    @Test
    void aChangeNoEventNamedWaitsForTheNextFullScan() throws Exception {
        scans.tracking(true);
        scans.get();
        host.bind(T4.toString(), "nvidia");

        assertThat(driver(scans.get())).as("nothing named: the last scan, /dev read again").contains("vfio-pci");
        scans.fullScanNext();
        assertThat(driver(scans.get())).contains("nvidia");
        assertThat(scans.counts()).isEqualTo(new HostScans.Counts(2, 1));
    }

    @Test
    void devIsReadAgainByEveryPass() throws Exception {
        scans.tracking(true);
        scans.get();
        host.removeGroupNode(24);

        assertThat(scans.get().devNodes().groupNodes()).doesNotContain(24);
        assertThat(scans.counts()).isEqualTo(new HostScans.Counts(1, 1));
    }

    @Test
    void changesNamedBetweenPassesAreReadTogetherOnce() throws Exception {
        scans.tracking(true);
        scans.get();
        host.bind("0000:1a:00.0", "nvidia");
        host.bind("0000:1b:00.0", "nvidia");
        scans.changed(ChangedDevices.function(PciAddress.parse("0000:1a:00.0")));
        scans.changed(ChangedDevices.function(PciAddress.parse("0000:1b:00.0")));

        assertThat(scans.hasPending()).isTrue();
        HostSnapshot after = scans.get();

        assertThat(after).isEqualTo(scanner.scan());
        assertThat(scans.hasPending()).isFalse();
    }

    @Test
    void ueventsStoppingMakesEveryPassAFullOneAgain() throws Exception {
        scans.tracking(true);
        scans.get();
        scans.tracking(false);
        host.bind(T4.toString(), "nvidia");

        assertThat(scans.hasPending()).as("a full scan is due").isTrue();
        assertThat(driver(scans.get())).contains("nvidia");
        assertThat(scans.counts()).isEqualTo(new HostScans.Counts(2, 0));
    }
}
