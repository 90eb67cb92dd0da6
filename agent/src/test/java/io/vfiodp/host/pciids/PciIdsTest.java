package io.vfiodp.host.pciids;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PciIdsTest {

    static final String SAMPLE = """
            #
            #\tList of PCI ID's
            #
            # Syntax:
            # vendor  vendor_name
            #\tdevice  device_name\t\t\t\t<-- single tab
            #\t\tsubvendor subdevice  subsystem_name\t<-- two tabs

            8086  Intel Corporation
            \t1520  I350 Ethernet Controller Virtual Function
            10de  NVIDIA Corporation
            \t1eb8  TU104GL [Tesla T4]
            \t\t10de 12a2  TU104GL [Tesla T4]
            \t1e89  TU104 [GeForce RTX 2060]\r
            # a comment inside the vendor block
            \t1af1  GA100 [A100 NVSwitch]
            15cf  Hilscher Gesellschaft für Systemautomation mbH
            \t0000  NetPLC card
            ffff  Illegal Vendor ID

            # List of known device classes, subclasses and programming interfaces
            C 03  Display controller
            \t02  3D controller
            """;

    static PciIds sample() throws IOException {
        return PciIds.parse("sample", SAMPLE.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void looksUpDeviceNamesOfAnyVendor() throws IOException {
        PciIds ids = sample();
        assertThat(ids.deviceName(0x10de, 0x1eb8)).contains("TU104GL [Tesla T4]");
        assertThat(ids.deviceName(0x10de, 0x1af1)).contains("GA100 [A100 NVSwitch]");
        assertThat(ids.deviceName(0x8086, 0x1520)).contains("I350 Ethernet Controller Virtual Function");
    }

    @Test
    void looksUpVendorNames() throws IOException {
        PciIds ids = sample();
        assertThat(ids.vendorName(0x10de)).contains("NVIDIA Corporation");
        assertThat(ids.vendorName(0x15cf)).contains("Hilscher Gesellschaft für Systemautomation mbH");
        assertThat(ids.vendorName(0x1234)).isEmpty();
    }

    @Test
    void unknownDeviceOrVendorHasNoName() throws IOException {
        PciIds ids = sample();
        assertThat(ids.deviceName(0x10de, 0x26b9)).isEmpty();
        assertThat(ids.deviceName(0x1002, 0x1eb8)).isEmpty();
    }

    @Test
    void subsystemLinesAreNotDevices() throws IOException {
        // "\t\t10de 12a2" must not be read as device 10de of vendor 10de
        assertThat(sample().deviceName(0x10de, 0x10de)).isEmpty();
    }

    @Test
    void trailingCarriageReturnIsNotPartOfTheName() throws IOException {
        assertThat(sample().deviceName(0x10de, 0x1e89)).contains("TU104 [GeForce RTX 2060]");
    }

    @Test
    void classSectionIsNotReadAsVendors() throws IOException {
        PciIds ids = sample();
        assertThat(ids.toString()).contains(", 4 vendors, ");
        assertThat(ids.deviceName(0xffff, 0x0002)).isEmpty();
    }

    @Test
    void holdsOnlyTheVendorAndDeviceLinesInMemory() throws IOException {
        String read = """
                8086  Intel Corporation
                \t1520  I350 Ethernet Controller Virtual Function
                10de  NVIDIA Corporation
                \t1eb8  TU104GL [Tesla T4]
                \t1e89  TU104 [GeForce RTX 2060]\r
                \t1af1  GA100 [A100 NVSwitch]
                15cf  Hilscher Gesellschaft für Systemautomation mbH
                \t0000  NetPLC card
                ffff  Illegal Vendor ID
                """;

        assertThat(sample().toString()).endsWith(", " + read.getBytes(StandardCharsets.UTF_8).length + " bytes held]");
    }

    @Test
    void holdsTheDeviceLinesOfTheVendorsAskedForOnly(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("pci.ids");
        Files.writeString(file, SAMPLE);
        String read = """
                8086  Intel Corporation
                10de  NVIDIA Corporation
                \t1eb8  TU104GL [Tesla T4]
                \t1e89  TU104 [GeForce RTX 2060]\r
                \t1af1  GA100 [A100 NVSwitch]
                15cf  Hilscher Gesellschaft für Systemautomation mbH
                ffff  Illegal Vendor ID
                """;

        PciIds ids = PciIds.load(Optional.of(file), Set.of(0x10de));

        assertThat(ids.toString()).endsWith(", " + read.getBytes(StandardCharsets.UTF_8).length + " bytes held]");
        assertThat(ids.deviceName(0x10de, 0x1eb8)).contains("TU104GL [Tesla T4]");
        assertThat(ids.vendorName(0x8086)).contains("Intel Corporation");
        assertThat(ids.hasDeviceNamesOf(Set.of(0x10de))).isTrue();
        assertThat(ids.hasDeviceNamesOf(Set.of(0x10de, 0x8086))).isFalse();
        assertThatThrownBy(() -> ids.deviceName(0x8086, 0x1520)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(file + " was read without the device names of vendor 8086");
    }

    @Test
    void aDatabaseLargerThanAReadChunkLosesNoLineAtTheChunkEdges() throws IOException {
        StringBuilder content = new StringBuilder();
        for (int vendor = 0x1000; vendor < 0x1000 + 1500; vendor++) {
            content.append(String.format("%04x  Vendor %d%n", vendor, vendor));
            for (int device = 0; device < 8; device++) {
                content.append(String.format("\t%04x  Device %d of vendor %d%n", device, device, vendor));
                content.append(String.format("\t\t%04x %04x  a subsystem line%n", vendor, device));
            }
        }
        // one line longer than the 64 KiB read buffer
        content.append("\tffff  ").append("x".repeat(100_000)).append('\n');

        PciIds ids = PciIds.parse("large", content.toString().getBytes(StandardCharsets.UTF_8));

        assertThat(content.length()).isGreaterThan(10 * 64 * 1024);
        for (int vendor = 0x1000; vendor < 0x1000 + 1500; vendor++) {
            assertThat(ids.vendorName(vendor)).contains("Vendor " + vendor);
            for (int device = 0; device < 8; device++) {
                assertThat(ids.deviceName(vendor, device)).contains("Device " + device + " of vendor " + vendor);
            }
        }
        assertThat(ids.deviceName(0x1000 + 1499, 0xffff)).hasValueSatisfying(name -> assertThat(name).hasSize(100_000));
    }

    @Test
    void theDeviceLinesOfOneVendorAreKeptAcrossChunkEdgesWhileTheOthersArePassedOver() throws IOException {
        StringBuilder content = new StringBuilder("# Version: 2030.01.01\n");
        StringBuilder kept = new StringBuilder();
        for (int vendor = 0x1000; vendor < 0x1000 + 1500; vendor++) {
            String vendorLine = String.format("%04x  Vendor %d%n", vendor, vendor);
            content.append(vendorLine);
            kept.append(vendorLine);
            for (int device = 0; device < 8; device++) {
                String deviceLine = String.format("\t%04x  Device %d of vendor %d%n", device, device, vendor);
                content.append(deviceLine).append(String.format("\t\t%04x %04x  a subsystem line%n", vendor, device));
                if (vendor == 0x1000 + 1000) kept.append(deviceLine);
            }
            if (vendor % 100 == 0) content.append("# a comment between vendors\n\n");
        }
        content.append("C 03  Display controller\n\t00  VGA compatible controller\n");
        byte[] bytes = content.toString().getBytes(StandardCharsets.UTF_8);

        PciIds ids = PciIds.parse("large", new java.io.ByteArrayInputStream(bytes), Optional.of(Set.of(0x1000 + 1000)), Optional.empty());

        assertThat(bytes.length).isGreaterThan(10 * 64 * 1024);
        assertThat(ids.toString()).endsWith(", 1500 vendors, " + kept.toString().getBytes(StandardCharsets.UTF_8).length + " bytes held]");
        assertThat(ids.origin().version()).contains("2030.01.01");
        for (int vendor = 0x1000; vendor < 0x1000 + 1500; vendor++) assertThat(ids.vendorName(vendor)).contains("Vendor " + vendor);
        for (int device = 0; device < 8; device++) {
            assertThat(ids.deviceName(0x1000 + 1000, device)).contains("Device " + device + " of vendor " + (0x1000 + 1000));
        }
        assertThat(ids.deviceName(0x1000 + 1000, 8)).isEmpty();
    }

    @Test
    void theFirstDeviceLineWithANameWinsWhateverTheCaseOfItsDigits() throws IOException {
        PciIds ids = PciIds.parse("repeats", """
                10de  NVIDIA Corporation
                \t1EB8 \t
                \t1eb8  TU104GL [Tesla T4]
                \t1eb8  a later line for the same id
                \t\t1eb8 0001  a subsystem line is never a device
                \t20B5  GA100 [A100 PCIe 80GB]
                \t12ab
                \tzzzz  not an id
                10df  Emulex Corporation
                \t12ab  Emulex's device
                """.getBytes(StandardCharsets.UTF_8));

        assertThat(ids.deviceName(0x10de, 0x1eb8)).contains("TU104GL [Tesla T4]");
        assertThat(ids.deviceName(0x10de, 0x20b5)).contains("GA100 [A100 PCIe 80GB]");
        assertThat(ids.deviceName(0x10de, 0x0001)).isEmpty();
        assertThat(ids.deviceName(0x10de, 0x12ab)).as("no name on its line; another vendor's line").isEmpty();
        assertThat(ids.deviceName(0x10df, 0x12ab)).contains("Emulex's device");
        assertThat(ids.deviceName(0x10de, 0x1eb8)).as("looked up again").contains("TU104GL [Tesla T4]");
    }

    @Test
    void idsBeyondSixteenBitsHaveNoName() throws IOException {
        PciIds ids = sample();
        assertThat(ids.deviceName(0x10de, 0x11eb8)).isEmpty();
        assertThat(ids.deviceName(0x10de, -1)).isEmpty();
        assertThat(ids.deviceName(0x110de, 0x1eb8)).isEmpty();
        assertThat(ids.vendorName(0x110de)).isEmpty();
    }

    @Test
    void truncatedGzipContentIsAnErrorNamingTheSource() throws IOException {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(SAMPLE.getBytes(StandardCharsets.UTF_8));
        }
        byte[] truncated = java.util.Arrays.copyOf(gz.toByteArray(), gz.size() / 2);

        assertThatThrownBy(() -> PciIds.parse("sample.gz", truncated)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("pci.ids database sample.gz is gzip-compressed but cannot be decompressed: ");
    }

    @Test
    void readsGzipCompressedContent() throws IOException {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(SAMPLE.getBytes(StandardCharsets.UTF_8));
        }
        assertThat(PciIds.parse("sample.gz", gz.toByteArray()).deviceName(0x10de, 0x1eb8)).contains("TU104GL [Tesla T4]");
    }

    @Test
    void bundledCopyKnowsTheTeslaT4() throws IOException {
        PciIds ids = PciIds.bundled();
        assertThat(ids.source()).isEqualTo("bundled pci.ids (jar:/pci.ids.gz)");
        assertThat(ids.deviceName(0x10de, 0x1eb8)).contains("TU104GL [Tesla T4]");
        assertThat(ids.deviceName(0x10de, 0x1f08)).contains("TU106 [GeForce RTX 2060 Rev. A]");
    }

    /** The jar carries Debian sid's pci.ids 2026.10.24 (bin/refresh-pci-ids), which knows current GPUs. */
    @Test
    void bundledCopyIsDebians2026_10_24AndKnowsCurrentGpus() throws IOException {
        PciIds ids = PciIds.bundled();
        assertThat(ids.origin().version()).contains("2026.10.24");
        assertThat(ids.deviceName(0x10de, 0x26b9)).contains("AD102GL [L40S]");
        assertThat(ids.deviceName(0x10de, 0x2335)).contains("GH100 [H200 SXM 141GB]");
        assertThat(ids.deviceName(0x10de, 0x2901)).contains("GB100 [B200]");
        assertThat(ids.deviceName(0x10de, 0x22a3)).contains("GH100 [H100 NVSwitch]");
    }

    static String versioned(String version) {
        return "#\n#\tList of PCI IDs\n#\n#\tVersion: " + version + "\n#\tDate:    " + version.replace('.', '-') + " 03:15:02\n#\n"
                + "10de  NVIDIA Corporation\n\t26b9  system copy " + version + "\n";
    }

    @Test
    void aSystemFileNewerThanTheBundledCopyIsUsedAndSaysWhy(@TempDir Path dir) throws IOException {
        Path system = Files.writeString(dir.resolve("pci.ids"), versioned("2027.01.02"));
        PciIds ids = PciIds.load(Optional.empty(), List.of(system));
        assertThat(ids.origin()).isEqualTo(new PciIds.Origin(system.toString(), Optional.of("2027.01.02"),
                Optional.of("newer than the bundled copy (2026.10.24)")));
        assertThat(ids.deviceName(0x10de, 0x26b9)).contains("system copy 2027.01.02");
        assertThat(ids.origin().describe()).isEqualTo(system + ", version 2027.01.02: newer than the bundled copy (2026.10.24)");
    }

    @Test
    void theBundledCopyWinsOverAnOlderSystemFileAndSaysWhy(@TempDir Path dir) throws IOException {
        Path system = Files.writeString(dir.resolve("pci.ids"), versioned("2025.07.11"));
        PciIds ids = PciIds.load(Optional.empty(), List.of(system));
        assertThat(ids.origin()).isEqualTo(new PciIds.Origin("bundled pci.ids (jar:/pci.ids.gz)", Optional.of("2026.10.24"),
                Optional.of("newer than " + system + " (2025.07.11)")));
        assertThat(ids.deviceName(0x10de, 0x26b9)).contains("AD102GL [L40S]");
    }

    @Test
    void aGzipCompressedSystemFileIsJudgedByItsVersionToo(@TempDir Path dir) throws IOException {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(versioned("2030.12.31").getBytes(StandardCharsets.UTF_8));
        }
        Path system = Files.write(dir.resolve("pci.ids.gz"), gz.toByteArray());
        assertThat(PciIds.load(Optional.empty(), List.of(system)).origin().version()).contains("2030.12.31");
    }

    @Test
    void ofTheSameVersionTheSystemFileIsUsed(@TempDir Path dir) throws IOException {
        Path system = Files.writeString(dir.resolve("pci.ids"), versioned("2026.10.24"));
        assertThat(PciIds.load(Optional.empty(), List.of(system)).origin().reason())
                .contains("the same version as the bundled copy (2026.10.24)");
    }

    @Test
    void aSystemFileWithoutAVersionLineCannotBeToldNewerSoTheBundledCopyIsUsed(@TempDir Path dir) throws IOException {
        Path system = Files.writeString(dir.resolve("pci.ids"), SAMPLE);
        PciIds ids = PciIds.load(Optional.empty(), List.of(system));
        assertThat(ids.origin()).isEqualTo(new PciIds.Origin("bundled pci.ids (jar:/pci.ids.gz)", Optional.of("2026.10.24"),
                Optional.of(system + " has no 'Version:' line to tell its age by")));
    }

    @Test
    void anExplicitFileIsUsedWhateverItsVersion(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("old.ids"), versioned("2019.01.01"));
        assertThat(PciIds.load(Optional.of(file), List.of()).origin()).isEqualTo(new PciIds.Origin(file.toString(),
                Optional.of("2019.01.01"), Optional.of("given explicitly, used whatever its version")));
    }

    /** serve loads through load(Optional, Set): its log says which copy, its version and why. */
    @Test
    void theLoadServeUsesLogsWhichCopyAndWhy(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("old.ids"), versioned("2019.01.01"));
        java.io.PrintStream original = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            PciIds.load(Optional.of(file), Set.of(0x10de));
        } finally {
            System.setErr(original);
        }
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("INFO pci.ids: " + file + ", version 2019.01.01: given explicitly, used whatever its version\n");
    }

    @Test
    void versionsCompareNumberByNumber() {
        assertThat(PciIdsCopies.compareVersions("2026.10.24", "2026.9.30")).isPositive();
        assertThat(PciIdsCopies.compareVersions("2025.12.31", "2026.01.01")).isNegative();
        assertThat(PciIdsCopies.compareVersions("2026.10.24", "2026.10.24")).isZero();
    }

    @Test
    void explicitFileWins(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("my.ids");
        Files.writeString(file, "10de  NVIDIA Corporation\n\t1eb8  Renamed T4\n");
        Path system = dir.resolve("system.ids");
        Files.writeString(system, SAMPLE);
        PciIds ids = PciIds.load(Optional.of(file), List.of(system));
        assertThat(ids.source()).isEqualTo(file.toString());
        assertThat(ids.deviceName(0x10de, 0x1eb8)).contains("Renamed T4");
    }

    @Test
    void missingExplicitFileIsAnErrorNamingIt(@TempDir Path dir) {
        Path missing = dir.resolve("nope.ids");
        assertThatThrownBy(() -> PciIds.load(Optional.of(missing), List.of()))
                .isInstanceOf(IOException.class)
                .hasMessage("cannot read pci.ids database " + missing + ": no such file");
    }

    @Test
    void explicitFileThatIsNotPciIdsIsAnErrorNamingIt(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("garbage");
        Files.writeString(file, "hello\nworld\n");
        assertThatThrownBy(() -> PciIds.load(Optional.of(file), List.of()))
                .isInstanceOf(IOException.class)
                .hasMessage("pci.ids database " + file + " has no vendor lines ('vvvv  Vendor name'): not a pci.ids file");
    }

    @Test
    void firstExistingSystemLocationIsTheOneComparedWithTheBundledCopy(@TempDir Path dir) throws IOException {
        Path second = dir.resolve("hwdata.ids");
        Files.writeString(second, versioned("2027.01.02"));
        Files.writeString(dir.resolve("share.ids"), versioned("2028.01.02"));
        PciIds ids = PciIds.load(Optional.empty(), List.of(dir.resolve("misc.ids"), second, dir.resolve("share.ids")));
        assertThat(ids.source()).isEqualTo(second.toString());
    }

    @Test
    void bundledCopyWhenNoSystemFileExists(@TempDir Path dir) throws IOException {
        PciIds ids = PciIds.load(Optional.empty(), List.of(dir.resolve("misc.ids")));
        assertThat(ids.source()).isEqualTo("bundled pci.ids (jar:/pci.ids.gz)");
        assertThat(ids.origin().reason()).contains("no system pci.ids (" + dir.resolve("misc.ids") + ")");
    }
}
