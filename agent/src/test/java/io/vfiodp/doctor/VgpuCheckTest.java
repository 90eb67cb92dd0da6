package io.vfiodp.doctor;

import static io.vfiodp.doctor.Nodes.about;
import static io.vfiodp.doctor.Nodes.view;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class VgpuCheckTest {

    private final VgpuCheck check = new VgpuCheck();

    @Test
    void anMdevParentCountsItsVgpusAndWhatItCanStillCreate() {
        assertThat(about(check, view("t4-vgpu"), "0000:3b:00.0")).isEqualTo(new Outcome.Ok("mdev: 3 GRID T4-1Q exist; can create GRID T4-1Q x13"));
    }

    @Test
    void anSriovPfCountsItsVfsAndTheTypesAFreeOneCanTake() {
        assertThat(about(check, view("l40s-sriov"), "0000:41:00.0")).isEqualTo(new Outcome.Ok(
                "SR-IOV vGPU: 4 VFs, 2 NVIDIA L40S-4Q; 2 free, which can take NVIDIA L40S-4Q"));
    }

    @Test
    void aGpuOnVfioPciHasNoVgpuLine() {
        assertThat(check.run(view("doctor-ready"))).isEmpty();
    }

    @Test
    void aPfWithoutVfsWarnsWithTheCommandThatEnablesThem() {
        assertThat(about(check, view("doctor-amd-shared"), "0000:e1:00.0")).isEqualTo(new Outcome.Warn("SR-IOV vGPU: no VFs enabled",
                Fix.now("enable its VFs (NVIDIA's vGPU manager does it at boot through its sriov-manage service)",
                        List.of("/usr/lib/nvidia/sriov-manage -e 0000:e1:00.0"))));
    }
}
