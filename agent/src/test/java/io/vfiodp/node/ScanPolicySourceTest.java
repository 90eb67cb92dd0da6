package io.vfiodp.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.policy.config.LocalConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** What {@link ScanPolicySource} asks of the pci.ids database: the device names the policy needs on this host, read again only when it needs more. */
class ScanPolicySourceTest {

    private static final Path FIXTURES = Path.of("src/test/resources/sysfs-fixtures");

    private static HostSnapshot scan(String fixture) {
        return new SysfsScanner(FIXTURES.resolve(fixture).resolve("sys"), FIXTURES.resolve(fixture).resolve("dev")).scan();
    }

    @Test
    void readsTheDeviceNamesThePolicyNeedsOnceAndAgainWhenItNeedsMore() throws Exception {
        AtomicReference<HostSnapshot> host = new AtomicReference<>(HostSnapshot.EMPTY);
        List<Set<Integer>> loads = new ArrayList<>();
        ScanPolicySource source = new ScanPolicySource(host::get, LocalConfig.of(Optional.empty()), vendors -> {
            loads.add(Set.copyOf(vendors));
            return PciIds.load(Optional.of(bundledCopy()), vendors);
        }, Optional.empty());

        source.read();
        assertThat(loads).containsExactly(Set.of());

        host.set(scan("t4-numa")); // the default naming names its NVIDIA GPUs (PLX and Intel devices are never named)
        TargetState t4 = source.read();
        source.read();
        assertThat(loads).containsExactly(Set.of(), Set.of(0x10de));
        assertThat(t4.plugins().resources().keySet()).extracting(Object::toString).containsExactly("nvidia.com/TU104GL_TESLA_T4");

        host.set(scan("l40s-sriov"));
        source.read();
        assertThat(loads).hasSize(2);
    }

    @Test
    void servesWhatTheWholeDatabaseWouldName() throws Exception {
        HostSnapshot t4 = scan("t4-numa");
        TargetState whole = new ScanPolicySource(() -> t4, Optional.empty(), PciIds.bundled()).read();

        TargetState filtered = new ScanPolicySource(() -> t4, LocalConfig.of(Optional.empty()),
                vendors -> PciIds.load(Optional.of(bundledCopy()), vendors), Optional.empty()).read();

        assertThat(filtered.plugins()).isEqualTo(whole.plugins());
        assertThat(filtered.plugins().resources().keySet()).extracting(Object::toString).containsExactly("nvidia.com/TU104GL_TESLA_T4");
    }

    private static Path bundledCopy() throws java.io.IOException {
        Path copy = java.nio.file.Files.createTempFile("pci-", ".ids.gz");
        copy.toFile().deleteOnExit();
        try (var in = PciIds.class.getResourceAsStream("/pci.ids.gz")) {
            java.nio.file.Files.copy(in, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return copy;
    }
}
