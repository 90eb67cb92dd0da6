package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.policy.DeviceKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LauncherEnvTest {

    @TempDir
    Path dir;

    @Test
    void anEnvFileSkipsCommentsAndBlankLinesAndAcceptsExportAndQuotes() throws IOException {
        Path file = dir.resolve("env");
        Files.writeString(file, """
                # written by the operator
                PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:3b:00.0

                export MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q="4b20d080-1b54-4048-85b3-a6a62d165c01"
                VFIO_DP_COMPANIONS_NVIDIA_COM_TU104GL_TESLA_T4='0000:3b:00.0=0000:3b:00.1'
                """);
        LauncherEnv env = LauncherEnv.fromFile(file);
        assertThat(env.deviceVariables()).containsExactly(
                new ResourceVariable.Set(DeviceKind.PCI, "PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:3b:00.0"),
                new ResourceVariable.Set(DeviceKind.MDEV, "MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q", "4b20d080-1b54-4048-85b3-a6a62d165c01"));
        assertThat(env.companionsFor(env.deviceVariables().get(0))).isEqualTo(new LauncherEnv.CompanionsVariable(
                "VFIO_DP_COMPANIONS_NVIDIA_COM_TU104GL_TESLA_T4", Optional.of("0000:3b:00.0=0000:3b:00.1")));
    }

    @Test
    void aLineWithoutEqualsSignNamesTheFileAndLine() throws IOException {
        Path file = dir.resolve("env");
        Files.writeString(file, "A=1\nPCI_RESOURCE_X\n");
        assertThatThrownBy(() -> LauncherEnv.fromFile(file))
                .isInstanceOf(IOException.class)
                .hasMessage(file + " line 2: expected NAME=VALUE, got 'PCI_RESOURCE_X'");
    }

    @Test
    void aResourceIsLookedUpUnderKubeVirtsVariableNames() {
        LauncherEnv env = LauncherEnv.of(Map.of("MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q", "u"));
        assertThat(env.lookup("nvidia.com/GRID_T4-1Q")).isEqualTo(new ResourceVariable.Set(DeviceKind.MDEV, "MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q", "u"));
        assertThat(env.lookup("nvidia.com/other")).isEqualTo(new ResourceVariable.Unset("PCI_RESOURCE_NVIDIA_COM_OTHER", "MDEV_PCI_RESOURCE_NVIDIA_COM_OTHER"));
    }

    /** virt-launcher reads both variables of a resource; one listing nothing yields no hostdev (hostdevice/addresspool.go). */
    @Test
    void aVariableListingNothingNextToOneListingDevicesIsPassedOverButTwoListingDevicesAreBoth() {
        assertThat(LauncherEnv.of(Map.of("PCI_RESOURCE_X", ",", "MDEV_PCI_RESOURCE_X", "u")).lookup("x"))
                .isEqualTo(new ResourceVariable.Set(DeviceKind.MDEV, "MDEV_PCI_RESOURCE_X", "u"));
        assertThat(LauncherEnv.of(Map.of("PCI_RESOURCE_X", "a", "MDEV_PCI_RESOURCE_X", "")).lookup("x"))
                .isEqualTo(new ResourceVariable.Set(DeviceKind.PCI, "PCI_RESOURCE_X", "a"));
        assertThat(LauncherEnv.of(Map.of("PCI_RESOURCE_X", "a", "MDEV_PCI_RESOURCE_X", "u")).lookup("x"))
                .isEqualTo(new ResourceVariable.Both("PCI_RESOURCE_X", "MDEV_PCI_RESOURCE_X"));
        assertThat(LauncherEnv.of(Map.of("PCI_RESOURCE_X", "", "MDEV_PCI_RESOURCE_X", "")).lookup("x"))
                .isEqualTo(new ResourceVariable.Both("PCI_RESOURCE_X", "MDEV_PCI_RESOURCE_X"));
    }

    @Test
    void onlyKubeVirtDevicePrefixesCountAsDeviceVariables() {
        assertThat(LauncherEnv.of(Map.of("VFIO_DP_COMPANIONS_X", "a=", "USB_RESOURCE_X", "1:2")).hasDeviceVariables()).isFalse();
        assertThat(LauncherEnv.of(Map.of("MDEV_PCI_RESOURCE_X", "")).hasDeviceVariables()).isTrue();
        assertThat(LauncherEnv.of(Map.of("PCI_RESOURCE_X", "")).deviceVariables())
                .isEqualTo(List.of(new ResourceVariable.Set(DeviceKind.PCI, "PCI_RESOURCE_X", "")));
    }
}
