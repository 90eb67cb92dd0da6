package io.vfiodp.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.MdevType;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.scan.SysfsScanner;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class LayoutPlannerTest {

    private static final Allocated FREE = new Allocated.Known(Set.of());
    private static final LayoutPlanner PLANNER = new LayoutPlanner(() -> "11111111-2222-4333-8444-555555555555");

    private static MdevType type(String id, String name, int available) {
        return new MdevType(id, Optional.of(name), available, "vfio-pci", Optional.empty());
    }

    /** Four identical empty T4s offering 1Q (16), 2Q (8) and 4Q (4). */
    private static HostSnapshot fourEmptyT4s() {
        TreeMap<PciAddress, MdevParent> parents = new TreeMap<>();
        for (String a : List.of("0000:d9:00.0", "0000:3b:00.0", "0000:5e:00.0", "0000:86:00.0")) {
            PciAddress address = PciAddress.parse(a);
            parents.put(address, new MdevParent(address, List.of(type("nvidia-230", "GRID T4-1Q", 16),
                    type("nvidia-231", "GRID T4-2Q", 8), type("nvidia-232", "GRID T4-4Q", 4))));
        }
        return new HostSnapshot(new TreeMap<>(), new TreeMap<>(), parents, new TreeMap<>(), new TreeMap<>(),
                HostSnapshot.EMPTY.devNodes(), List.of());
    }

    @Test
    void desiredTypesGoRoundRobinOverGpusInAddressOrder() {
        assertThat(LayoutPlanner.assignments(fourEmptyT4s(), List.of("GRID_T4-1Q", "GRID_T4-2Q", "GRID_T4-4Q"))).isEqualTo(Map.of(
                PciAddress.parse("0000:3b:00.0"), "GRID T4-1Q",
                PciAddress.parse("0000:5e:00.0"), "GRID T4-2Q",
                PciAddress.parse("0000:86:00.0"), "GRID T4-4Q",
                PciAddress.parse("0000:d9:00.0"), "GRID T4-1Q"));
    }

    @Test
    void aGpuThatDoesNotOfferItsTurnsTypeTakesTheNextDesiredOne() {
        HostSnapshot s = fourEmptyT4s();
        TreeMap<PciAddress, MdevParent> parents = new TreeMap<>(s.mdevParents());
        PciAddress first = PciAddress.parse("0000:3b:00.0");
        parents.put(first, new MdevParent(first, List.of(type("nvidia-231", "GRID T4-2Q", 8))));
        HostSnapshot changed = new HostSnapshot(s.functions(), s.groups(), parents, s.mdevs(), s.vgpuVfs(), s.devNodes(), s.problems());

        assertThat(LayoutPlanner.assignments(changed, List.of("GRID_T4-1Q", "GRID_T4-2Q"))).isEqualTo(Map.of(
                first, "GRID T4-2Q",
                PciAddress.parse("0000:5e:00.0"), "GRID T4-2Q",
                PciAddress.parse("0000:86:00.0"), "GRID T4-1Q",
                PciAddress.parse("0000:d9:00.0"), "GRID T4-2Q"));
    }

    @Test
    void aGpuOfferingNoDesiredTypeIsNotCountedInTheRotation() {
        HostSnapshot s = fourEmptyT4s();
        TreeMap<PciAddress, MdevParent> parents = new TreeMap<>(s.mdevParents());
        PciAddress first = PciAddress.parse("0000:3b:00.0");
        parents.put(first, new MdevParent(first, List.of(type("nvidia-232", "GRID T4-4Q", 4))));
        HostSnapshot changed = new HostSnapshot(s.functions(), s.groups(), parents, s.mdevs(), s.vgpuVfs(), s.devNodes(), s.problems());

        assertThat(LayoutPlanner.assignments(changed, List.of("GRID_T4-1Q", "GRID_T4-2Q"))).isEqualTo(Map.of(
                PciAddress.parse("0000:5e:00.0"), "GRID T4-1Q",
                PciAddress.parse("0000:86:00.0"), "GRID T4-2Q",
                PciAddress.parse("0000:d9:00.0"), "GRID T4-1Q"));
    }

    @Test
    void typesMatchByIdAsWellAsByName() {
        List<PlannedWrite> plan = PLANNER.plan(fourEmptyT4s(), List.of("nvidia-232"), OwnedDevices.NONE, FREE);

        assertThat(plan).hasSize(16).allMatch(w -> w instanceof PlannedWrite.CreateMdev c && c.typeId().equals("nvidia-232"));
    }

    @Test
    void nothingDesiredAndNothingOwnedPlansNothing() {
        HostSnapshot t4 = new SysfsScanner(Path.of("src/test/resources/sysfs-fixtures/t4-vgpu/sys"),
                Path.of("src/test/resources/sysfs-fixtures/t4-vgpu/dev")).scan();

        assertThat(PLANNER.plan(t4, List.of(), OwnedDevices.NONE, FREE)).isEmpty();
    }
}
