package io.vfiodp.host.scan;

import static io.vfiodp.host.scan.FixtureScans.pci;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.ScanProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link SysfsScanner#rescan}: reads what an event names, and what depends on it, and gives the
 * snapshot a full scan gives. {@link IncrementalRescanProperties} checks the equality on random
 * changes; these name the cases.
 */
class SysfsRescanTest {

    @Test
    void anUnbindIsReadFromTheFunctionItsGroupAndDevAlone() throws Exception {
        try (ChangingNode node = ChangingNode.of("t4-numa")) {
            HostScan before = node.scanner().fullScan();
            PciAddress t4 = pci("0000:1a:00.0");
            ChangedDevices changed = node.apply(new ChangingNode.Change.Unbind(t4));
            Path t4Dir = node.sys().resolve("bus/pci/devices/0000:1a:00.0").toRealPath();
            Path group = node.sys().resolve("kernel/iommu_groups/24");

            HostScan after;
            List<String> opened;
            try (OpenWatch watch = OpenWatch.of(List.of(node.sys()), Set.of())) {
                after = node.scanner().rescan(before, changed);
                opened = watch.drain();
            }

            assertThat(after.snapshot().function(t4).orElseThrow().driver()).isEmpty();
            assertThat(after.snapshot()).isEqualTo(node.scanner().scan());
            assertThat(opened).as("what the rescan opened or read").isNotEmpty()
                    .allMatch(e -> e.startsWith(t4Dir + "/") || e.startsWith(t4Dir + " ") || e.startsWith(group + "/"));
        }
    }

    @Test
    void aFunctionNoLongerListedIsGoneWithItsGroup() throws Exception {
        try (ChangingNode node = ChangingNode.of("t4-numa")) {
            HostScan before = node.scanner().fullScan();
            ChangedDevices changed = node.apply(new ChangingNode.Change.HotRemove(pci("0000:1b:00.0")));

            HostSnapshot after = node.scanner().rescan(before, changed).snapshot();

            assertThat(changed.functions()).containsExactly(pci("0000:1b:00.0"));
            assertThat(after.function(pci("0000:1b:00.0"))).isEmpty();
            assertThat(after.group(25)).isEmpty();
            assertThat(after).isEqualTo(node.scanner().scan());
        }
    }

    @Test
    void aFunctionThatAppearsIsReadWithItsGroup() throws Exception {
        try (ChangingNode node = ChangingNode.of("t4-numa")) {
            ChangedDevices changed = node.apply(new ChangingNode.Change.HotRemove(pci("0000:1b:00.0")));
            HostScan without = node.scanner().fullScan();
            node.restore();

            HostSnapshot after = node.scanner().rescan(without, changed).snapshot();

            assertThat(after.function(pci("0000:1b:00.0"))).isPresent();
            assertThat(after.group(25).orElseThrow().members()).containsExactly(pci("0000:1b:00.0"));
            assertThat(after).isEqualTo(node.intact());
        }
    }

    @Test
    void aVgpuTypeSetOnAVfIsNamedFromItsSiblings() throws Exception {
        try (ChangingNode node = ChangingNode.of("l40s-sriov")) {
            HostScan before = node.scanner().fullScan();
            PciAddress vf = pci("0000:41:00.6");
            ChangedDevices changed = node.apply(new ChangingNode.Change.SetVgpuType(vf, 1150));

            HostSnapshot after = node.scanner().rescan(before, changed).snapshot();

            assertThat(after.vgpuVfs().get(vf).currentTypeId()).isEqualTo(1150);
            assertThat(after.vgpuVfs().get(vf).typeName()).contains("NVIDIA L40S-4Q");
            assertThat(after).isEqualTo(node.scanner().scan());
        }
    }

    @Test
    void aRemovedMdevIsGoneWithItsGroup() throws Exception {
        try (ChangingNode node = ChangingNode.of("t4-vgpu")) {
            HostScan before = node.scanner().fullScan();
            String uuid = "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27";
            int group = before.snapshot().mdevs().get(uuid).iommuGroup();
            ChangedDevices changed = node.apply(new ChangingNode.Change.RemoveMdev(uuid));

            HostSnapshot after = node.scanner().rescan(before, changed).snapshot();

            assertThat(changed.mdevs()).containsExactly(uuid);
            assertThat(after.mdevs()).doesNotContainKey(uuid);
            assertThat(after.group(group)).isEmpty();
            assertThat(after).isEqualTo(node.scanner().scan());
        }
    }

    @Test
    void devNodesAreReadOnEveryRescan() throws Exception {
        try (ChangingNode node = ChangingNode.of("t4-numa")) {
            HostScan before = node.scanner().fullScan();
            Files.delete(node.dev().resolve("vfio/24"));

            HostSnapshot after = node.scanner().rescan(before, ChangedDevices.NONE).snapshot();

            assertThat(after.devNodes().hasGroupNode(24)).isFalse();
            assertThat(after).isEqualTo(node.scanner().scan());
        }
    }

    @Test
    void withoutAPciListBeforeTheRescanIsAFullScan() throws Exception {
        try (ChangingNode node = ChangingNode.of("t4-numa")) {
            Path missing = node.sys().resolveSibling("no-sys");
            HostScan before = new SysfsScanner(missing, node.dev()).fullScan();
            assertThat(before.snapshot().problems()).extracting(ScanProblem::path).contains(".");

            HostSnapshot after = node.scanner().rescan(before, ChangedDevices.NONE).snapshot();

            assertThat(after).isEqualTo(node.intact());
        }
    }
}
