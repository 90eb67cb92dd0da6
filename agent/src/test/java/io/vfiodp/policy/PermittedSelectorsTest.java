package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.List;
import org.junit.jupiter.api.Test;

class PermittedSelectorsTest {

    // found by ServedVariablesProperties: both were served, and virt-launcher reads both from
    // PCI_RESOURCE_NVIDIA_COM_T4, so a VM asking for one could get the other's devices
    @Test
    void laterNameSharingAnEnvVariableWithAnEarlierOneIsSkippedWithAnError() {
        PermittedSelectors s = PermittedSelectors.of(new PermittedHostDevices(
                List.of(new PciHostDevice("10DE:1EB8", "nvidia.com/t4", true), new PciHostDevice("8086:0A54", "nvidia.com/T4", true)),
                List.of(new MediatedHostDevice("GRID T4-1Q", "nvidia.com/GRID.T4", true),
                        new MediatedHostDevice("GRID T4-2Q", "nvidia.com/GRID_T4", true))));

        assertThat(s.forPci("10de:1eb8")).map(PermittedSelectors.Rule::resourceName).contains(ResourceName.of("nvidia.com/t4"));
        assertThat(s.forPci("8086:0a54")).isEmpty();
        assertThat(s.forMdevType("GRID T4-1Q")).isPresent();
        assertThat(s.forMdevType("GRID T4-2Q")).isEmpty();
        String why = " after PCI_RESOURCE_ or MDEV_PCI_RESOURCE_): KubeVirt upper-cases a resource name and turns '/' and '.'"
                + " into '_', so virt-launcher could not tell their devices apart";
        assertThat(s.problems()).extracting(PolicyProblem::message).containsExactly(
                "pciHostDevices[1] (8086:0a54 → nvidia.com/T4) skipped: resourceName nvidia.com/T4 reads from the same variable"
                        + " as nvidia.com/t4 of pciHostDevices[0] (NVIDIA_COM_T4" + why,
                "mediatedDevices[1] (GRID_T4-2Q → nvidia.com/GRID_T4) skipped: resourceName nvidia.com/GRID_T4 reads from the same"
                        + " variable as nvidia.com/GRID.T4 of mediatedDevices[0] (NVIDIA_COM_GRID_T4" + why);
    }

    @Test
    void entriesSharingOneNameStillShareItsVariable() {
        PermittedSelectors s = PermittedSelectors.of(new PermittedHostDevices(
                List.of(new PciHostDevice("10DE:1EB8", "nvidia.com/T4", true), new PciHostDevice("10DE:1EB9", "nvidia.com/T4", true)),
                List.of()));

        assertThat(s.problems()).isEmpty();
        assertThat(s.forPci("10de:1eb9")).isPresent();
    }
}
