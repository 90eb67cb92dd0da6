package io.vfiodp.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KernelArgsTest {

    @Test
    void aValueCountsAmongCommaSeparatedOnes() {
        assertThat(KernelArgs.parse("ro intel_iommu=sm_on,on quiet").hasValue("intel_iommu", "on")).isTrue();
    }

    @Test
    void theIommuIsOffWithAnyOfItsOffSwitches() {
        assertThat(KernelArgs.parse("ro iommu=off").iommuOff()).contains("iommu=off");
        assertThat(KernelArgs.parse("ro amd_iommu=off").iommuOff()).contains("amd_iommu=off");
        assertThat(KernelArgs.parse("ro intel_iommu=on iommu=pt").iommuOff()).isEmpty();
    }

    @Test
    void interruptRemappingIsOffWithNointremapOrIntremapOff() {
        assertThat(KernelArgs.parse("ro nointremap").remappingOff()).contains("nointremap");
        assertThat(KernelArgs.parse("ro intremap=no_x2apic_optout").remappingOff()).isEmpty();
    }

    @Test
    void onlyTheWordsThatMatterAreShownInTheirOrder() {
        assertThat(KernelArgs.parse("BOOT_IMAGE=/vmlinuz ro iommu=pt quiet intel_iommu=on vfio-pci.ids=10de:1eb8").relevant())
                .containsExactly("iommu=pt", "intel_iommu=on", "vfio-pci.ids=10de:1eb8");
    }
}
