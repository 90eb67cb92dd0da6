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

class PassthroughCheckTest {

    private final PassthroughCheck check = new PassthroughCheck();

    @Test
    void healthyDevicesAreCountedByResource() {
        assertThat(outcome(check, view("doctor-ready"))).isEqualTo(new Outcome.Ok("2 devices can be passed through: nvidia.com/TU104GL_TESLA_T4 (2)"));
    }

    @Test
    void anUnhealthyDeviceIsNotCounted() {
        assertThat(outcome(check, view("doctor-amd-shared"))).isEqualTo(new Outcome.Ok("1 device can be passed through: nvidia.com/GA107GL_A2___A16 (1)"));
    }

    @Test
    void noDeviceFailsNamingWhy() {
        assertThat(outcome(check, view("doctor-iommu-off"))).isEqualTo(new Outcome.Fail(
                "no device can be passed through: 0000:01:00.0: bound to nouveau: the host uses it (bind it to vfio-pci to pass it through)",
                Fix.advice("fix what the lines above say; `inventory` shows what serve decides for every device and why")));
    }

    @Test
    void aNodeWithoutCandidatesSaysThereIsNothingToPassThrough(@TempDir Path empty) throws IOException {
        Files.createDirectories(empty.resolve("sys/bus/pci/devices"));
        NodeView v = NodeReader.read(new DoctorSettings(empty.resolve("sys"), Nodes.root("doctor-ready").resolve("dev"),
                Nodes.root("doctor-ready").resolve("proc"), Optional.empty(), Optional.of(Nodes.PCI_IDS), Optional.empty(), Nodes.NO_KUBELET),
                Nodes.AVAILABLE, Optional::empty);

        assertThat(outcome(check, v).detail())
                .isEqualTo("no device can be passed through: no NVIDIA GPU or NVSwitch, and no pciHostDevices selector names a device here");
    }
}
