package io.vfiodp.policy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigFileTest {

    @Test
    void readsBothListsWithKubeVirtFieldNames() throws InvalidConfigException {
        ConfigFile.Loaded loaded = ConfigFile.parse("c.yaml", """
                permittedHostDevices:
                  pciHostDevices:
                    - pciVendorSelector: "10DE:1EB8"
                      resourceName: nvidia.com/TU104GL_Tesla_T4
                      externalResourceProvider: true
                    - pciVendorSelector: 8086:1520
                      resourceName: intel.com/I350_VF
                  mediatedDevices:
                    - mdevNameSelector: GRID_T4-1Q
                      resourceName: nvidia.com/GRID_T4-1Q
                      externalResourceProvider: true
                """);
        assertThat(loaded.permittedHostDevices().orElseThrow()).isEqualTo(new PermittedHostDevices(
                List.of(new PciHostDevice("10DE:1EB8", "nvidia.com/TU104GL_Tesla_T4", true),
                        new PciHostDevice("8086:1520", "intel.com/I350_VF", false)),
                List.of(new MediatedHostDevice("GRID_T4-1Q", "nvidia.com/GRID_T4-1Q", true))));
        assertThat(loaded.warnings()).isEmpty();
    }

    @Test
    void usbListIsToleratedWithoutWarning() throws InvalidConfigException {
        ConfigFile.Loaded loaded = ConfigFile.parse("c.yaml", """
                permittedHostDevices:
                  usb:
                    - resourceName: kubevirt.io/storage
                      selectors:
                        - vendor: "46f4"
                          product: "0001"
                """);
        assertThat(loaded.permittedHostDevices().orElseThrow()).isEqualTo(PermittedHostDevices.NONE);
        assertThat(loaded.warnings()).isEmpty();
    }

    @Test
    void unknownFieldsAreSkippedWithAWarningNamingLineAndField() throws InvalidConfigException {
        ConfigFile.Loaded loaded = ConfigFile.parse("c.yaml", """
                permittedHostDevices:
                  pciHostDevices:
                    - pciVendorSelector: "10DE:1EB8"
                      resourcename: nvidia.com/T4
                      externalResourceProvider: true
                  mediatedDevicesConfiguration:
                    mediatedDeviceTypes: [nvidia-222]
                """);
        assertThat(loaded.permittedHostDevices().orElseThrow().pciHostDevices()).containsExactly(new PciHostDevice("10DE:1EB8", "", true));
        assertThat(loaded.warnings()).containsExactly(
                "c.yaml line 4: unknown field permittedHostDevices.pciHostDevices[0].resourcename ignored",
                "c.yaml line 7: unknown field permittedHostDevices.mediatedDevicesConfiguration ignored");
    }

    @Test
    void unknownTopLevelFieldIsAWarning() throws InvalidConfigException {
        ConfigFile.Loaded loaded = ConfigFile.parse("c.yaml", """
                permittedHostDevices: {}
                featureGates: [GPU]
                """);
        assertThat(loaded.warnings()).containsExactly("c.yaml line 2: unknown field featureGates ignored");
    }

    @Test
    void missingListItemBecomesAnEmptyEntry() throws InvalidConfigException {
        ConfigFile.Loaded loaded = ConfigFile.parse("c.yaml", """
                permittedHostDevices:
                  pciHostDevices:
                    -
                """);
        assertThat(loaded.permittedHostDevices().orElseThrow().pciHostDevices()).containsExactly(new PciHostDevice("", "", false));
    }

    @Test
    void wrongValueTypeIsOneErrorNamingFileLineAndField() {
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", """
                permittedHostDevices:
                  pciHostDevices:
                    - pciVendorSelector: "10DE:1EB8"
                      resourceName: nvidia.com/T4
                      externalResourceProvider: maybe
                """))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml line 5, column 33, field permittedHostDevices.pciHostDevices[0].externalResourceProvider:"
                        + " 'maybe' is not true or false");
    }

    @Test
    void listWhereAStringBelongsIsAnError() {
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", """
                permittedHostDevices:
                  mediatedDevices:
                    - mdevNameSelector: [GRID_T4-1Q]
                """))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml line 3, column 25, field permittedHostDevices.mediatedDevices[0].mdevNameSelector:"
                        + " expected a string, found a list");
    }

    // found by ConfigFileProperties: the message used to end in
    // "got this instead: <org.yaml.snakeyaml.events.AliasEvent(anchor=a)>". YAML 1.2 (snakeyaml-engine, under
    // Jackson 3) allows ':' in an alias name, so "*a:" is the alias "a:" standing as permittedHostDevices' value.
    @Test
    void aliasIsNamedInWordsNotAsTheYamlLibrarysEvent() {
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", """
                permittedHostDevices:
                  *a: []
                """))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml line 2, column 3, field permittedHostDevices: an alias (*a:) stands where a value belongs;"
                        + " aliases are not supported, write the value out");
    }

    @Test
    void yamlSyntaxErrorNamesTheLine() {
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", """
                permittedHostDevices:
                  pciHostDevices:
                    - pciVendorSelector: "10DE:1EB8
                      resourceName: x
                """))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml line 3, column 24, field permittedHostDevices.pciHostDevices[0]:"
                        + " while scanning a quoted scalar: found unexpected end of stream");
    }

    @Test
    void duplicateKeyIsAnError() {
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", """
                permittedHostDevices:
                  pciHostDevices:
                    - pciVendorSelector: "10DE:1EB8"
                      pciVendorSelector: "10DE:1EB9"
                """))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml line 4, column 24, field permittedHostDevices.pciHostDevices[0]:"
                        + " Duplicate field 'pciVendorSelector'");
    }

    @Test
    void anEscapeCutShortByTheDocumentsEndIsAnErrorWithoutTheScannersExceptionName() {
        // the scanner reads the escape's hex digits up to the end, finds none, and fails converting them
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", "permittedHostDevices:\n  pciHostDevices:\n    - resourceName: \"\\u"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml line 3, column 19, field permittedHostDevices.pciHostDevices[0]: an escape the YAML scanner cannot"
                        + " read (in a double-quoted string \\x, \\u and \\U take 2, 4 and 8 hex digits): For input string: \"\" under radix 16");
    }

    @Test
    void scalarWhereAListBelongsIsAnError() {
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", "permittedHostDevices:\n  pciHostDevices: 5\n"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml line 2, column 19, field permittedHostDevices.pciHostDevices: expected a list, found a number");
    }

    @Test
    void emptyFileIsAnError() {
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", "# nothing here\n"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml: the file is empty; expected a top-level permittedHostDevices: block");
    }

    @Test
    void documentWithoutPermittedHostDevicesIsAnError() {
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", "pciHostDevices: []\n"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml: no top-level permittedHostDevices: block (write 'permittedHostDevices: {}' to permit nothing)");
    }

    // ConfigFileProperties: a value of the wrong kind with no field above it used to name no place
    @Test
    void topLevelListIsAnErrorAtTheTopLevel() {
        assertThatThrownBy(() -> ConfigFile.parse("c.yaml", "- permittedHostDevices: {}\n"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("c.yaml line 1, column 1, at the top level: expected a mapping (key: value), found a list");
    }

    @Test
    void missingFileIsAnErrorNamingIt(@TempDir Path dir) {
        Path file = dir.resolve("absent.yaml");
        assertThatThrownBy(() -> ConfigFile.read(file))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("config file " + file + ": no such file");
    }

    @Test
    void nonUtf8FileIsAnErrorNamingIt(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("latin1.yaml");
        Files.write(file, new byte[] {'a', ':', ' ', (byte) 0xe9, '\n'});
        assertThatThrownBy(() -> ConfigFile.read(file))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("config file " + file + ": not UTF-8 text");
    }

    @Test
    void readsAFileFromDisk(@TempDir Path dir) throws IOException, InvalidConfigException {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, "permittedHostDevices:\n  mediatedDevices:\n  - mdevNameSelector: A\n    resourceName: x.io/a\n");
        assertThat(ConfigFile.read(file).permittedHostDevices().orElseThrow().mediatedDevices())
                .containsExactly(new MediatedHostDevice("A", "x.io/a", false));
    }
}
