package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.PciAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DraRoutingTest {

    static final ResourceName T4 = ResourceName.of("nvidia.com/TU104GL_TESLA_T4");
    static final ResourceName Q1 = ResourceName.of("nvidia.com/GRID_T4-1Q");

    static DesiredState state() {
        PciAddress a = PciAddress.parse("0000:3b:00.0");
        ExposedDevice gpu = new ExposedDevice("0000:3b:00.0", DeviceKind.PCI, a, 3, 0, List.of(), Optional.empty(), List.of(), Health.HEALTHY);
        ExposedDevice mdev = new ExposedDevice("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", DeviceKind.MDEV, PciAddress.parse("0000:5e:00.0"), 100, 0,
                List.of(), Optional.empty(), List.of(), Health.HEALTHY);
        return DesiredState.of(List.of(new DesiredResource(T4, DeviceKind.PCI, List.of(gpu)), new DesiredResource(Q1, DeviceKind.MDEV, List.of(mdev))));
    }

    @Test
    void parsesNoneAllAndLists() {
        assertThat(DraRouting.parse("")).isEqualTo(DraRouting.NONE);
        assertThat(DraRouting.parse("none")).isEqualTo(DraRouting.NONE);
        assertThat(DraRouting.parse(" all ")).isEqualTo(DraRouting.ALL);
        DraRouting r = DraRouting.parse("nvidia.com/GRID_T4-1Q, nvidia.com/TU104GL_TESLA_T4");
        assertThat(r.resources()).containsExactly(Q1, T4);
        assertThat(r.toString()).isEqualTo("nvidia.com/GRID_T4-1Q,nvidia.com/TU104GL_TESLA_T4");
        assertThat(DraRouting.parse(r.toString())).isEqualTo(r);
    }

    @Test
    void routesAnyUnlessNone() {
        assertThat(DraRouting.NONE.routesAny()).isFalse();
        assertThat(DraRouting.parse("none").routesAny()).isFalse();
        assertThat(DraRouting.ALL.routesAny()).isTrue();
        assertThat(DraRouting.parse("nvidia.com/GRID_T4-1Q").routesAny()).isTrue();
    }

    @Test
    void aBadEntryIsAnErrorNamingIt() {
        assertThatThrownBy(() -> DraRouting.parse("nvidia.com/T4,GRID"))
                .hasMessageStartingWith("DRA resources 'nvidia.com/T4,GRID': 'GRID' is not a resource name: ");
        assertThatThrownBy(() -> DraRouting.parse("nvidia.com/T4,all")).hasMessage("DRA resources 'nvidia.com/T4,all': 'all' stands alone, not in a list");
        assertThatThrownBy(() -> DraRouting.parse("nvidia.com/T4,")).hasMessageContaining("'' is not a resource name");
    }

    @Test
    void eachResourceGoesOneWayWhole() {
        DraRouting.Split split = DraRouting.parse("nvidia.com/GRID_T4-1Q").split(state());
        assertThat(split.devicePlugins().resources()).containsOnlyKeys(T4);
        assertThat(split.dra().resources()).containsOnlyKeys(Q1);
        assertThat(DraRouting.ALL.split(state()).devicePlugins().resources()).isEmpty();
        assertThat(DraRouting.NONE.split(state()).dra().resources()).isEmpty();
    }

    @Test
    void namedResourcesTheNodeDoesNotServeAreReported() {
        assertThat(DraRouting.parse("nvidia.com/GRID_T4-1Q,nvidia.com/GRID_T4-8Q").unmatched(state()))
                .containsExactly(ResourceName.of("nvidia.com/GRID_T4-8Q"));
    }
}
