package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * virt-launcher finds a resource's devices by the variable named after it, upper-cased with
 * {@code /} and {@code .} as {@code _}: whatever the configuration, no two resources the plugin
 * serves may map to one variable, or a VM asking for one would get the other's devices.
 */
class ServedVariablesProperties {

    private HostSnapshot t4Numa;
    private HostSnapshot t4Vgpu;
    private PciIds pciIds;

    @BeforeProperty
    void scan() throws IOException {
        t4Numa = new SysfsScanner(SysfsFixtures.sys("t4-numa"), SysfsFixtures.dev("t4-numa")).scan();
        t4Vgpu = new SysfsScanner(SysfsFixtures.sys("t4-vgpu"), SysfsFixtures.dev("t4-vgpu")).scan();
        pciIds = PciIds.bundled();
    }

    @Property(tries = 300)
    void noTwoServedResourcesShareAnEnvVariable(@ForAll("configs") PermittedHostDevices config, @ForAll boolean vgpuNode) {
        PolicyResult result = PolicyEngine.evaluate(vgpuNode ? t4Vgpu : t4Numa, Optional.of(config), pciIds);

        Map<String, ResourceName> byVariable = new TreeMap<>();
        for (ResourceName name : result.desiredState().resources().keySet()) {
            ResourceName other = byVariable.put(KubeVirtEnv.variableName(DeviceKind.PCI, name), name);
            assertThat(other).as("resource sharing a variable with %s", name).isNull();
        }
    }

    /** Names that differ only where KubeVirt's variable name does not: case, '.' against '_'. */
    private static Arbitrary<String> names() {
        return Arbitraries.of("nvidia.com/T4", "nvidia.com/t4", "nvidia.com/T4.GPU", "nvidia.com/T4_GPU", "nvidia.com/t4_gpu",
                "nvidia.com/GRID_T4-1Q", "nvidia.com/grid_t4-1q", "nvidia.com/GRID.T4-1Q", "intel.com/NVME", "intel.com/nvme");
    }

    @Provide
    Arbitrary<PermittedHostDevices> configs() {
        Arbitrary<PciHostDevice> pci = Combinators.combine(Arbitraries.of("10DE:1EB8", "8086:0A54", "10de:1eb8"), names(),
                Arbitraries.of(true, true, false)).as(PciHostDevice::new);
        Arbitrary<MediatedHostDevice> mdev = Combinators.combine(Arbitraries.of("GRID T4-1Q", "GRID T4-2Q", "GRID_T4-4Q"), names(),
                Arbitraries.of(true, true, false)).as(MediatedHostDevice::new);
        return Combinators.combine(pci.list().ofMaxSize(4), mdev.list().ofMaxSize(4)).as(PermittedHostDevices::new);
    }
}
