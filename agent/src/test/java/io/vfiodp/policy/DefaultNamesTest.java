package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class DefaultNamesTest {

    @ParameterizedTest(name = "''{0}'' → {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            TU106 [GeForce RTX 2060 Rev. A]                     | TU106_GEFORCE_RTX_2060_REV__A
            TU104GL [Tesla T4]                                  | TU104GL_TESLA_T4
            GA100 [A100 PCIe 80GB]                              | GA100_A100_PCIE_80GB
            TU102GL [Quadro RTX 6000/8000]                      | TU102GL_QUADRO_RTX_6000_8000
            TU117M [GeForce GTX 1650 Mobile / Max-Q]            | TU117M_GEFORCE_GTX_1650_MOBILE___MAXQ
            GN20-P0-R-K2 [GeForce RTX 3050 6GB Laptop GPU]      | GN20P0RK2_GEFORCE_RTX_3050_6GB_LAPTOP_GPU
            "  GA102GL [A10]  "                                 | GA102GL_A10
            "GH100  \t [H100]"                                  | GH100_H100
            GK110 [Über Card]                                   | GK110_BER_CARD
            Straße                                              | STRAE
            GA104 [RTX A4500 Embedded GPU ]                     | GA104_RTX_A4500_EMBEDDED_GPU_
            """)
    void modelNameFollowsTheNvidiaPluginRule(String pciIdsName, String expected) {
        assertThat(DefaultNames.fromModelName(pciIdsName.replace("\\t", "\t"))).isEqualTo(expected);
    }

    @Test
    void unknownDeviceIsNamedByItsLowerCaseHexId() {
        assertThat(DefaultNames.fromDeviceId(0x26b9)).isEqualTo("26b9");
        assertThat(DefaultNames.fromDeviceId(0x0042)).isEqualTo("0042");
    }

    @ParameterizedTest(name = "''{0}'' → {1}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
            GRID T4-1Q         | GRID_T4-1Q
            NVIDIA L40S-4Q     | NVIDIA_L40S-4Q
            "GRID  T4 \t2B"    | GRID_T4_2B
            NVIDIA H200X-1-18C | NVIDIA_H200X-1-18C
            """)
    void typeNameTurnsWhitespaceRunsIntoUnderscores(String typeName, String expected) {
        assertThat(DefaultNames.fromTypeName(typeName.replace("\\t", "\t"))).isEqualTo(expected);
    }

    @Test
    void validNamePartIsKeptAsItIs() {
        assertThat(DefaultNames.repair("TU104GL_TESLA_T4")).contains(new DefaultNames.Repaired("TU104GL_TESLA_T4", Optional.empty()));
    }

    @Test
    void trailingUnderscoreIsTrimmed() {
        assertThat(DefaultNames.repair("GA104_RTX_A4500_EMBEDDED_GPU_")).contains(new DefaultNames.Repaired(
                "GA104_RTX_A4500_EMBEDDED_GPU",
                Optional.of("'GA104_RTX_A4500_EMBEDDED_GPU_' is not a valid resource name; using 'GA104_RTX_A4500_EMBEDDED_GPU'"
                        + " (trimmed leading/trailing characters that are not letters or digits)")));
    }

    @Test
    void leadingAndTrailingDotsAreTrimmed() {
        assertThat(DefaultNames.repair("._X.Y._").map(DefaultNames.Repaired::namePart)).contains("X.Y");
    }

    @Test
    void charactersTheKubeletRejectsAreDropped() {
        assertThat(DefaultNames.repair("GRID_T4-1Q_(beta)")).contains(new DefaultNames.Repaired("GRID_T4-1Q_beta",
                Optional.of("'GRID_T4-1Q_(beta)' is not a valid resource name; using 'GRID_T4-1Q_beta'"
                        + " (dropped characters the kubelet does not allow)")));
    }

    @Test
    void nameLongerThan63IsShortenedWithAHashOfTheFullName() {
        String full = "NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870___TESLA_S1070___TESLA_S2050";
        assertThat(DefaultNames.repair(full)).contains(new DefaultNames.Repaired(
                "NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870_a6072ae5",
                Optional.of("'" + full + "' is not a valid resource name; using 'NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870_a6072ae5'"
                        + " (shortened from 81 to 62 characters (the kubelet allows 63), keeping a hash of the full name)")));
    }

    @Test
    void twoLongNamesWithOneLongPrefixStayApart() {
        String a = "NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870___TESLA_S1070___TESLA_S2050";
        String b = "NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870___TESLA_S1070___TESLA_S2070";
        assertThat(DefaultNames.repair(b).map(DefaultNames.Repaired::namePart))
                .contains("NF200_PCIE_2_0_SWITCH_FOR_QUADRO_PLEX_S4___TESLA_S870_515ca67c");
        assertThat(DefaultNames.repair(a).map(DefaultNames.Repaired::namePart))
                .isNotEqualTo(DefaultNames.repair(b).map(DefaultNames.Repaired::namePart));
    }

    @Test
    void exactly63CharactersIsKept() {
        String name = "A".repeat(63);
        assertThat(DefaultNames.repair(name)).contains(new DefaultNames.Repaired(name, Optional.empty()));
    }

    @Test
    void nothingUsableLeftIsEmpty() {
        assertThat(DefaultNames.repair("__")).isEmpty();
        assertThat(DefaultNames.repair("ÜÖ")).isEmpty();
    }

    @Test
    void everyRepairedNameIsAValidResourceName() {
        for (String raw : new String[] {"X_", "_X", "A".repeat(200), "a.b-c_d", "-x-", "Ω_ok", "x" + "_".repeat(70) + "y"}) {
            String part = DefaultNames.repair(raw).orElseThrow().namePart();
            assertThat(ResourceName.problem("nvidia.com/" + part)).as(raw).isEmpty();
        }
    }
}
