package io.vfiodp.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.policy.DraKind;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.config.LocalConfig;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The split of one scan and policy pass between the device plugins and DRA. */
class ScanPolicySourceDraTest {

    private static final Path FIXTURES = Path.of("src/test/resources/sysfs-fixtures");

    private static HostSnapshot scan(String fixture) {
        return new SysfsScanner(FIXTURES.resolve(fixture).resolve("sys"), FIXTURES.resolve(fixture).resolve("dev")).scan();
    }

    private static ScanPolicySource source(AtomicReference<HostSnapshot> host, String routing) throws Exception {
        PciIds ids = PciIds.bundled();
        return new ScanPolicySource(host::get, LocalConfig.of(Optional.empty()), vendors -> ids, Optional.empty(),
                DraRouting.parse(routing), evaluation -> { });
    }

    @Test
    void aRoutedResourceLeavesTheDevicePluginsAndIsOfferedThroughDraWithProfiles() throws Exception {
        TargetState t = source(new AtomicReference<>(scan("t4-vgpu")), "nvidia.com/GRID_T4-2Q").read();
        assertThat(t.plugins().resources().keySet()).extracting(Object::toString).containsExactly("nvidia.com/GRID_T4-1Q");
        assertThat(t.dra().resources().resources().keySet()).extracting(Object::toString).containsExactly("nvidia.com/GRID_T4-2Q");
        assertThat(t.dra().profiles()).containsOnlyKeys("7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13", "e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64");
        assertThat(t.dra().profiles().get("7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13").kind()).isEqualTo(DraKind.MDEV);
        assertThat(t.dra().profiles().get("7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13").pcieRoot()).contains("pci0000:d8");
    }

    @Test
    void withoutRoutingNothingGoesToDra() throws Exception {
        TargetState t = source(new AtomicReference<>(scan("l40s-sriov")), "none").read();
        assertThat(t.dra().resources().resources()).isEmpty();
        assertThat(t.plugins().resources()).hasSize(2);
    }

    @Test
    void aDraDeviceTheHostTookAwayIsOfferedOneMorePassUnhealthyWithItsProfile() throws Exception {
        AtomicReference<HostSnapshot> host = new AtomicReference<>(scan("l40s-sriov"));
        ScanPolicySource source = source(host, "all");
        TargetState before = source.read();
        host.set(HostSnapshot.EMPTY);
        TargetState after = source.read();
        assertThat(after.dra().profiles()).isEqualTo(before.dra().profiles());
        assertThat(after.dra().resources().resources().values()).allSatisfy(r -> assertThat(r.devices())
                .allSatisfy(d -> assertThat(d.health()).isInstanceOf(Health.Unhealthy.class)));
        assertThat(source.read().dra().resources().resources()).isEmpty();
    }
}
