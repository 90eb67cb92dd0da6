package io.vfiodp.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.VgpuType;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.scan.SysfsScanner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The layout manager against fixture nodes whose kernel is played by {@link KernelFake}. */
class LayoutManagerTest {

    private static final Path FIXTURES = Path.of("src/test/resources/sysfs-fixtures");
    private static final PciAddress T4_A = PciAddress.parse("0000:3b:00.0");
    private static final PciAddress T4_B = PciAddress.parse("0000:d9:00.0");
    private static final Allocated NONE_ALLOCATED = new Allocated.Known(Set.of());

    @TempDir Path tmp;
    private KernelFake kernel;
    private StateFile state;
    private final List<String> events = new ArrayList<>();
    private final List<String> states = new ArrayList<>();
    private final AtomicInteger uuid = new AtomicInteger();

    private final LayoutEvents recording = new LayoutEvents() {
        @Override public void warn(String reason, String message) {
            events.add(reason + ": " + message);
        }

        @Override public void state(LayoutState s, String message) {
            states.add(s.wireValue());
        }
    };

    private LayoutManager node(String fixture, Allocated allocated) throws IOException {
        Path root = tmp.resolve(fixture);
        Trees.copy(FIXTURES.resolve(fixture), root);
        kernel = new KernelFake(root.resolve("sys"), root.resolve("dev"));
        state = new StateFile(tmp.resolve("state"));
        return manager(allocated);
    }

    private LayoutManager manager(Allocated allocated) {
        SysfsScanner scanner = scanner();
        return new LayoutManager(scanner::scan, () -> allocated,
                new LayoutPlanner(() -> String.format("00000000-0000-4000-8000-%012d", uuid.incrementAndGet())),
                new LayoutExecutor(sysRoot(), kernel, state, recording), state, recording);
    }

    private Path sysRoot() {
        try (var s = Files.list(tmp)) {
            return s.filter(p -> !p.getFileName().toString().equals("state")).findFirst().orElseThrow().resolve("sys");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private SysfsScanner scanner() {
        return new SysfsScanner(sysRoot(), sysRoot().resolveSibling("dev"));
    }

    private HostSnapshot scan() {
        return scanner().scan();
    }

    private List<String> typesOn(PciAddress parent) {
        return scan().mdevs().values().stream().filter(m -> m.parent().equals(parent)).map(MdevInstance::typeName).toList();
    }

    @Test
    void fillsAGpuWithItsKeptTypeUpToAvailableInstances() throws IOException {
        LayoutManager m = node("t4-vgpu", NONE_ALLOCATED);

        LayoutManager.Outcome outcome = m.reconcile(List.of("GRID_T4-1Q", "GRID_T4-2Q"));

        assertThat(outcome.state()).isEqualTo(LayoutState.SUCCESS);
        assertThat(outcome.writes()).isEqualTo(13 + 6);
        assertThat(typesOn(T4_A)).hasSize(16).containsOnly("GRID T4-1Q");
        assertThat(typesOn(T4_B)).hasSize(8).containsOnly("GRID T4-2Q");
        assertThat(state.read().mdevs()).hasSize(19);
        assertThat(scan().problems()).isEmpty();
        assertThat(states).containsExactly("pending", "success");
    }

    @Test
    void aSecondReconcileOfAReachedLayoutWritesNothing() throws IOException {
        LayoutManager m = node("t4-vgpu", NONE_ALLOCATED);
        m.reconcile(List.of("GRID_T4-1Q", "GRID_T4-2Q"));
        int before = kernel.writes.size();

        LayoutManager.Outcome again = m.reconcile(List.of("GRID_T4-1Q", "GRID_T4-2Q"));

        assertThat(again.writes()).isZero();
        assertThat(kernel.writes).hasSize(before);
    }

    @Test
    void foreignMdevsOfAnotherTypeAreNeverRemovedAndBlockTheirGpu() throws IOException {
        LayoutManager m = node("t4-vgpu", NONE_ALLOCATED);

        LayoutManager.Outcome outcome = m.reconcile(List.of("GRID_T4-4Q"));

        assertThat(kernel.writes).isEmpty();
        assertThat(typesOn(T4_A)).containsExactly("GRID T4-1Q", "GRID T4-1Q", "GRID T4-1Q");
        assertThat(typesOn(T4_B)).containsExactly("GRID T4-2Q", "GRID T4-2Q");
        assertThat(outcome.state()).isEqualTo(LayoutState.FAILED);
        assertThat(outcome.message()).isEqualTo("layout not reachable: "
                + "GPU 0000:3b:00.0 carries GRID T4-1Q (0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27) instead of GRID T4-4Q; "
                + "GPU 0000:d9:00.0 carries GRID T4-2Q (7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13) instead of GRID T4-4Q (not ours or in use; left alone)");
    }

    @Test
    void ownedFreeInstancesOfAnUnwantedTypeAreRemovedAndTheGpuRefilled() throws IOException {
        LayoutManager m = node("t4-vgpu", NONE_ALLOCATED);
        m.reconcile(List.of("GRID_T4-1Q", "GRID_T4-2Q"));
        // Hand the two foreign T4-2Q instances to us too, so the GPU can change type.
        OwnedDevices owned = state.read();
        for (String u : scan().mdevs().keySet()) owned = owned.withMdev(u);
        state.write(owned);
        LayoutManager restarted = manager(NONE_ALLOCATED);

        LayoutManager.Outcome outcome = restarted.reconcile(List.of("GRID_T4-1Q"));

        assertThat(outcome.state()).isEqualTo(LayoutState.SUCCESS);
        assertThat(typesOn(T4_B)).isEmpty();
        assertThat(typesOn(T4_A)).hasSize(16);
    }

    @Test
    void allocatedInstancesAreKeptEvenWhenOwnedAndUnwanted() throws IOException {
        LayoutManager first = node("t4-vgpu", NONE_ALLOCATED);
        first.reconcile(List.of("GRID_T4-1Q", "GRID_T4-2Q"));
        String inUse = "00000000-0000-4000-8000-000000000001";
        LayoutManager m = manager(new Allocated.Known(Set.of(inUse)));

        m.reconcile(List.of("GRID_T4-2Q"));

        assertThat(scan().mdevs().keySet()).contains(inUse);
        assertThat(scan().mdevs().get(inUse).parent()).isEqualTo(T4_A);
        assertThat(state.read().mdevs()).contains(inUse).doesNotContain("00000000-0000-4000-8000-000000000002");
    }

    @Test
    void nothingIsRemovedWhenPodResourcesCannotAnswer() throws IOException {
        LayoutManager first = node("t4-vgpu", NONE_ALLOCATED);
        first.reconcile(List.of("GRID_T4-1Q", "GRID_T4-2Q"));
        int before = scan().mdevs().size();
        LayoutManager m = manager(new Allocated.Unknown("socket missing"));

        m.reconcile(List.of("GRID_T4-2Q"));

        assertThat(scan().mdevs()).hasSize(before);
    }

    @Test
    void aRestartedManagerKnowsItsInstancesFromTheStateFile() throws IOException {
        LayoutManager first = node("t4-vgpu", NONE_ALLOCATED);
        first.reconcile(List.of("GRID_T4-1Q", "GRID_T4-2Q"));

        LayoutManager restarted = manager(NONE_ALLOCATED);
        restarted.reconcile(List.of());

        // Ours (13 + 6) are gone, the 5 the fixture came with are not.
        assertThat(scan().mdevs().keySet()).containsExactlyInAnyOrder(
                "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", "5e8d2a41-93c6-4f0b-a7d2-6c1e4b8f9a30", "c91f7d3a-2b68-4e15-9a04-8f3c6d2e1b59",
                "7f4a2c9e-1d3b-4a86-b5e7-2c9d0f8a6e13", "e26b8d05-4f7c-4391-8a2e-5b1d9c7f3a64");
        assertThat(state.read()).isEqualTo(OwnedDevices.NONE);
    }

    @Test
    void aFailingWriteIsOneEventNamingGpuAndTypeAndTheRestProceeds() throws IOException {
        LayoutManager m = node("t4-vgpu", NONE_ALLOCATED);
        kernel.failNext("bus/pci/devices/0000:3b:00.0/mdev_supported_types/nvidia-230/create", "Device or resource busy");

        LayoutManager.Outcome outcome = m.reconcile(List.of("GRID_T4-1Q", "GRID_T4-2Q"));

        assertThat(events).containsExactly("VgpuLayoutWriteFailed: GPU 0000:3b:00.0, type GRID T4-1Q: create mdev nvidia-230 (GRID T4-1Q) on "
                + "0000:3b:00.0 failed: writing 00000000-0000-4000-8000-000000000001 to "
                + "bus/pci/devices/0000:3b:00.0/mdev_supported_types/nvidia-230/create: Device or resource busy");
        assertThat(typesOn(T4_B)).hasSize(8);
        assertThat(state.read().mdevs()).doesNotContain("00000000-0000-4000-8000-000000000001");
        assertThat(outcome.state()).isEqualTo(LayoutState.FAILED);
    }

    @Test
    void anUnwritableStateDirPausesManagementWithOneError() throws IOException {
        LayoutManager m = node("t4-vgpu", NONE_ALLOCATED);
        // Root ignores permissions; a link to nowhere where the state dir goes fails the write for anyone (and reads as no file).
        Files.createSymbolicLink(tmp.resolve("state"), tmp.resolve("nowhere/state"));

        LayoutManager.Outcome outcome = m.reconcile(List.of("GRID_T4-1Q"));
        m.reconcile(List.of("GRID_T4-1Q"));

        assertThat(outcome.state()).isEqualTo(LayoutState.FAILED);
        assertThat(outcome.message()).startsWith("vGPU layout management paused: cannot write state file");
        assertThat(kernel.writes).isEmpty();
        assertThat(events).hasSize(1);
    }

    @Test
    void sriovPlacesOneVfAtATimeUntilTheCreatableListsRunOut() throws IOException {
        LayoutManager m = node("l40s-sriov", NONE_ALLOCATED);
        kernel.sriovCatalog("0000:41:00.0", List.of(new VgpuType(1147, "NVIDIA L40S-1Q"), new VgpuType(1150, "NVIDIA L40S-4Q")),
                Map.of(1150, 3));

        LayoutManager.Outcome outcome = m.reconcile(List.of("NVIDIA_L40S-4Q"));

        assertThat(outcome.state()).isEqualTo(LayoutState.SUCCESS);
        assertThat(kernel.writes).containsExactly("bus/pci/devices/0000:41:00.6/nvidia/current_vgpu_type <- 1150");
        assertThat(scan().vgpuVfs().get(PciAddress.parse("0000:41:00.7")).currentTypeId()).isZero();
        assertThat(scan().vgpuVfs().get(PciAddress.parse("0000:41:00.7")).creatable()).isEmpty();
        assertThat(state.read().vfs()).containsExactly(PciAddress.parse("0000:41:00.6"));
    }

    @Test
    void sriovFillsEveryFreeVfWhileTheGpuHasRoom() throws IOException {
        LayoutManager m = node("l40s-sriov", NONE_ALLOCATED);
        kernel.sriovCatalog("0000:41:00.0", List.of(new VgpuType(1150, "NVIDIA L40S-4Q")), Map.of(1150, 4));

        m.reconcile(List.of("NVIDIA_L40S-4Q"));

        assertThat(kernel.writes).containsExactly("bus/pci/devices/0000:41:00.6/nvidia/current_vgpu_type <- 1150",
                "bus/pci/devices/0000:41:00.7/nvidia/current_vgpu_type <- 1150");
        assertThat(state.read().vfs()).containsExactly(PciAddress.parse("0000:41:00.6"), PciAddress.parse("0000:41:00.7"));
    }
}
