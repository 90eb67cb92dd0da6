package io.vfiodp.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.PciAddress;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The VFIO nodes a container gets for some devices, the same for Allocate and for a DRA prepare. */
class VfioPathsTest {

    private static ExposedDevice gpu(String address, int group, Optional<String> cdev) {
        return new ExposedDevice(address, DeviceKind.PCI, PciAddress.parse(address), group, 0, List.of(), cdev, List.of(), Health.HEALTHY);
    }

    private static final ExposedDevice A = gpu("0000:3b:00.0", 12, Optional.of("vfio0"));
    private static final ExposedDevice B = gpu("0000:3b:00.1", 12, Optional.of("vfio1"));
    private static final ExposedDevice C = gpu("0000:af:00.0", 87, Optional.empty());
    private static final DevNodes LEGACY = DevNodes.of(true, Set.of(12, 87), false, Set.of());
    private static final DevNodes IOMMUFD = DevNodes.of(true, Set.of(12, 87), true, Set.of("vfio0", "vfio1"));

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("one device: the container node and its group", List.of(C), LEGACY, List.of("/dev/vfio/vfio", "/dev/vfio/87")),
                Arguments.of("two functions of one group share its node", List.of(A, B, C), LEGACY,
                        List.of("/dev/vfio/vfio", "/dev/vfio/12", "/dev/vfio/87")),
                Arguments.of("on iommufd hosts /dev/iommu and each device's cdev follow the groups", List.of(C, A), IOMMUFD,
                        List.of("/dev/vfio/vfio", "/dev/vfio/87", "/dev/vfio/12", "/dev/iommu", "/dev/vfio/devices/vfio0")),
                Arguments.of("a cdev the scan did not see under /dev is left out", List.of(A, B),
                        DevNodes.of(true, Set.of(12), true, Set.of("vfio1")),
                        List.of("/dev/vfio/vfio", "/dev/vfio/12", "/dev/iommu", "/dev/vfio/devices/vfio1")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void pathsInOrder(String behaviour, List<ExposedDevice> devices, DevNodes nodes, List<String> expected) {
        assertThat(VfioPaths.of(devices, nodes)).containsExactlyElementsOf(expected);
    }
}
