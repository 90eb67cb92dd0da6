package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.outcome;
import static io.vfiodp.doctor.Nodes.view;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** host.scan, config and pci.ids. */
class InputsAndScanCheckTest {

    @TempDir Path dir;

    @Test
    void aCleanScanSaysWhatItRead() {
        assertThat(outcome(new ScanCheck(), view("doctor-ready"))).isEqualTo(new Outcome.Ok("read 5 PCI functions, 5 IOMMU groups with them, 0 mdevs"));
    }

    @Test
    void everyUnreadableFileIsNamedOnTheScanLine() {
        Outcome scan = outcome(new ScanCheck(), view("doctor-odd"));

        assertThat(scan).isInstanceOf(Outcome.Warn.class);
        assertThat(scan.detail()).isEqualTo("read 5 PCI functions, 5 IOMMU groups with them, 0 mdevs; skipped 7 entries: "
                + Nodes.file("doctor-odd", "sys/class/iommu/dmar0") + ": dangling link (devices/virtual/iommu/dmar9 does not exist); "
                + Nodes.file("doctor-odd", "sys/class/iommu/dmar1/intel-iommu/ecap") + ": not a hexadecimal register value: 'zz'; "
                + Nodes.file("doctor-odd", "sys/firmware/acpi/tables") + ": link leads outside the scanned root; "
                + Nodes.file("doctor-odd", "sys/devices/system/node") + ": not a directory; "
                + Nodes.file("doctor-odd", "proc/cmdline") + ": not UTF-8 text; and 2 more");
    }

    @Test
    void scanProblemsAreNamedBelowTheirRoot() {
        assertThat(outcome(new ScanCheck(), view("hostile")).detail())
                .contains(Nodes.file("hostile", "sys/bus/pci/devices/0000:02:00.0/vendor") + ": ");
    }

    @Test
    void noConfigMeansTheDefaultNaming() {
        assertThat(new InputsCheck().run(view("doctor-ready")).getFirst()).isEqualTo(Finding.of("config",
                new Outcome.Ok("permitted devices from the default NVIDIA naming")));
    }

    @Test
    void anInvalidConfigFailsBecauseServeRefusesIt() throws IOException {
        Path config = Files.writeString(dir.resolve("bad.yaml"), "permittedHostDevices: [\n");

        Outcome o = new InputsCheck().run(view("doctor-ready", config)).getFirst().outcome();

        assertThat(o).isInstanceOf(Outcome.Fail.class);
        assertThat(o.detail()).isEqualTo(config + " line 1, column 23, field permittedHostDevices: expected a mapping (key: value), found a list");
        assertThat(((Outcome.Fail) o).fix()).isEqualTo(Fix.advice("correct " + config + ": serve refuses to start with it"));
    }

    @Test
    void configEntriesThePolicySkipsWarn() throws IOException {
        Path config = Files.writeString(dir.resolve("c.yaml"), """
                permittedHostDevices:
                  pciHostDevices:
                    - pciVendorSelector: "10de"
                      resourceName: nvidia.com/T4
                      externalResourceProvider: true
                """);

        Outcome o = new InputsCheck().run(view("doctor-ready", config)).getFirst().outcome();

        assertThat(o.detail()).isEqualTo(config + " read; permitted devices from --config " + config
                + "; error: pciHostDevices[0] (pciVendorSelector '10de', resourceName 'nvidia.com/T4') skipped: pciVendorSelector must be"
                + " VVVV:DDDD, the vendor and device id in hex (e.g. 10DE:1EB8)");
    }

    @Test
    void pciIdsSaysWhichCopyNamesTheDevices() {
        assertThat(new InputsCheck().run(view("doctor-ready")).get(1).outcome().detail())
                .isEqualTo("device names from " + Nodes.PCI_IDS + ", version 2026.10.24: given explicitly, used whatever its version");
    }

    @Test
    void aPciIdsFileThatCannotBeReadWarnsAndTheCopyInTheJarNamesTheDevices() {
        Path missing = dir.resolve("pci.ids");
        NodeView v = NodeReader.read(new DoctorSettings(Nodes.root("doctor-ready").resolve("sys"), Nodes.root("doctor-ready").resolve("dev"),
                Nodes.root("doctor-ready").resolve("proc"), Optional.empty(), Optional.of(missing), Optional.empty(), Nodes.NO_KUBELET), Nodes.AVAILABLE,
                Optional::empty);

        assertThat(new InputsCheck().run(v).get(1).outcome()).isInstanceOf(Outcome.Warn.class).extracting(Outcome::detail).asString()
                .startsWith(missing + ": ").endsWith("; names come from the copy in the jar");
        assertThat(v.policy().desiredState().resources().keySet()).extracting(Object::toString).containsExactly("nvidia.com/TU104GL_TESLA_T4");
    }
}
