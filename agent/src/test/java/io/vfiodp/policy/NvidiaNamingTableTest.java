package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.pciids.PciIds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * NVIDIA's kubevirt-gpu-device-plugin v1.6.0 names a GPU {@code nvidia.com/<getDeviceName(id)>},
 * or {@code nvidia.com/<id>} when its pci.ids does not know the id. Its own unit tests
 * ({@code pkg/device_plugin/device_plugin_test.go}, Context "getDeviceName() Tests") fix
 * the rule with a small pci.ids (an Intel device 2331 before NVIDIA's block; NVIDIA lines
 * with one space or two between id and name) and the names expected from it. Those rows
 * are the facts here: each GPU alone on a host, through our whole default policy, must come
 * out under NVIDIA's name. The {@code vGPU} row is its "readVgpuIDFromFile() Tests".
 */
class NvidiaNamingTableTest {

    /** The pci.ids of NVIDIA's getDeviceName() tests, line for line as those tests write them. */
    static final String NVIDIA_TEST_PCI_IDS = """

            8086  Intel Corporation
            \t2331  DH89xxCC Chap Counter
            10de NVIDIA Corporation
            \t118a  GK104GL [GRID K520]
            \t118b  GK104GL [GRID K2 GeForce USM]
            \t118d  gk104gl [grid k520]
            \t118e gk104.gl [grid/k./520]
            \t2331 GH100 [H100 PCIe]
            """;

    static PolicyResult aloneOnAHost(int device, PciIds ids) {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:3b:00.0", device, 12);
        return PolicyEngine.evaluate(b.build(), Optional.empty(), ids);
    }

    @ParameterizedTest(name = "{0} → nvidia.com/{1}")
    @CsvSource(delimiter = '|', textBlock = """
            118a | GK104GL_GRID_K520
            118d | GK104GL_GRID_K520
            118e | GK104_GL_GRID_K__520
            2331 | GH100_H100_PCIE
            abcd | abcd
            """)
    void aGpuGetsTheNameNvidiasUnitTestsExpect(String deviceId, String nvidiaName) throws IOException {
        PciIds ids = PciIds.parse("NVIDIA's getDeviceName() test pci.ids", NVIDIA_TEST_PCI_IDS.getBytes(StandardCharsets.UTF_8));

        PolicyResult result = aloneOnAHost(Integer.parseInt(deviceId, 16), ids);

        assertThat(result.desiredState().resources().keySet()).extracting(ResourceName::value).containsExactly("nvidia.com/" + nvidiaName);
    }

    /** readVgpuIDFromFileFunc: the type's {@code name} file with whitespace runs to {@code _}. */
    @ParameterizedTest(name = "''{0}'' → {1}")
    @CsvSource(delimiter = '|', textBlock = """
            GRID P100X-1B | GRID_P100X-1B
            """)
    void anMdevTypeGetsTheNameNvidiasUnitTestsExpect(String typeName, String nvidiaName) {
        assertThat(DefaultNames.fromTypeName(typeName)).isEqualTo(nvidiaName);
    }

    /**
     * Current GPUs the issue names, by NVIDIA's rule from the bundled pci.ids (Debian 2026.10.24;
     * NVIDIA's v1.6.0 image ships pci.ids 2025.07.11, which spells these four the same): the
     * older bundled copy named the first three by hex id.
     */
    @ParameterizedTest(name = "{0} → nvidia.com/{1}")
    @CsvSource(delimiter = '|', textBlock = """
            26b9 | AD102GL_L40S
            2335 | GH100_H200_SXM_141GB
            2901 | GB100_B200
            22a3 | GH100_H100_NVSWITCH
            2330 | GH100_H100_SXM5_80GB
            """)
    void currentGpusGetTheirModelNamesFromTheBundledPciIds(String deviceId, String nvidiaName) throws IOException {
        PolicyResult result = aloneOnAHost(Integer.parseInt(deviceId, 16), PciIds.bundled());

        assertThat(result.desiredState().resources().keySet()).extracting(ResourceName::value).containsExactly("nvidia.com/" + nvidiaName);
    }
}
