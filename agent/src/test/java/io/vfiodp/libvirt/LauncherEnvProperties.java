package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.DevNodes;
import io.vfiodp.host.PciAddress;
import io.vfiodp.plugin.Allocation;
import io.vfiodp.plugin.ResourceView;
import io.vfiodp.plugin.RpcOutcome;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.KubeVirtEnv;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * What Allocate hands the compute container reads back in the launcher helper: the variables
 * written as an env file (in any of the forms {@link LauncherEnv#fromFile} takes) give each
 * resource its variable and value unchanged, and the plan without a VMI attaches exactly the
 * allocated devices, companions included, in variable-name then value order.
 */
class LauncherEnvProperties {

    /** One resource's allocation to one container. */
    record Allocated(ResourceName name, DeviceKind kind, List<ExposedDevice> devices) {
        @Override
        public String toString() {
            return name + " " + devices.stream().map(d -> d.id() + (d.companions().isEmpty() ? "" : "+" + d.companions())).toList();
        }
    }

    @Property(tries = 200)
    void allocatedVariablesReadBackAndPlanExactlyTheAllocatedDevices(
            @ForAll("allocations") List<Allocated> allocations, @ForAll("lineStyles") List<Integer> styles) throws IOException {
        Map<String, String> envs = new LinkedHashMap<>();
        for (Allocated a : allocations) envs.putAll(allocate(a));

        Path file = Files.createTempFile("launcher-env", ".env");
        try {
            Files.writeString(file, envFile(envs, styles));
            LauncherEnv env = LauncherEnv.fromFile(file);

            // PCI variables first, then mdev ones, each kind in name order
            Map<String, List<PlannedHostdev>> expected = new TreeMap<>(
                    java.util.Comparator.comparing((String v) -> v.startsWith("MDEV_")).thenComparing(java.util.Comparator.naturalOrder()));
            for (Allocated a : allocations) {
                String variable = KubeVirtEnv.variableName(a.kind(), a.name());
                assertThat(env.lookup(a.name().value())).isEqualTo(new ResourceVariable.Set(a.kind(), variable, envs.get(variable)));
                expected.put(variable, planned(variable, a));
            }
            PlanOutcome plan = new HostdevPlanner().plan(env, Optional.empty(), true, KubeVirtRelease.V1_9);
            assertThat(plan).isInstanceOf(PlanOutcome.Planned.class);
            assertThat(((PlanOutcome.Planned) plan).hostdevs()).usingRecursiveFieldByFieldElementComparatorIgnoringFields("origin")
                    .containsExactlyElementsOf(expected.values().stream().flatMap(List::stream).toList());
        } finally {
            Files.delete(file);
        }
    }

    private static Map<String, String> allocate(Allocated a) {
        ResourceView view = new ResourceView(new DesiredResource(a.name(), a.kind(), a.devices()),
                DevNodes.of(true, Set.of(), false, Set.of()), Map.of());
        AllocateRequest request = AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest.newBuilder()
                .addAllDevicesIds(a.devices().stream().map(ExposedDevice::id).toList())).build();
        RpcOutcome<AllocateResponse> outcome = Allocation.allocate(view, request);
        assertThat(outcome).isInstanceOf(RpcOutcome.Granted.class);
        return ((RpcOutcome.Granted<AllocateResponse>) outcome).response().getContainerResponses(0).getEnvsMap();
    }

    private static List<PlannedHostdev> planned(String variable, Allocated a) {
        String base = "ua-hostdevice-" + variable.substring(a.kind().envPrefix().length() + 1).toLowerCase(java.util.Locale.ROOT);
        List<PlannedHostdev> out = new ArrayList<>();
        for (int i = 0; i < a.devices().size(); i++) {
            ExposedDevice d = a.devices().get(i);
            String where = variable + "[" + i + "]";
            out.add(a.kind() == DeviceKind.PCI
                    ? new PlannedHostdev.Pci(base + "-" + i, d.pciAddress(), d.companions(), where)
                    : new PlannedHostdev.Mdev(base + "-" + i, MdevUuid.parse(d.id()), false, false, where));
        }
        return out;
    }

    /** {@code NAME=VALUE} lines, each in a style: plain, export, double or single quotes; comments and blank lines between. */
    private static String envFile(Map<String, String> envs, List<Integer> styles) {
        StringBuilder out = new StringBuilder("# written by the test\nPATH=/usr/bin\n\n");
        int i = 0;
        for (var e : envs.entrySet()) {
            int style = styles.get(i++ % styles.size());
            String value = switch (style % 3) {
                case 1 -> "\"" + e.getValue() + "\"";
                case 2 -> "'" + e.getValue() + "'";
                default -> e.getValue();
            };
            out.append(style >= 3 ? "export " : "").append(e.getKey()).append('=').append(value).append(style % 2 == 0 ? "\n" : "\r\n");
            if (style == 5) out.append("\n# ").append(e.getKey()).append('\n');
        }
        return out.toString();
    }

    @Provide
    Arbitrary<List<Integer>> lineStyles() {
        return Arbitraries.integers().between(0, 5).list().ofMinSize(1).ofMaxSize(4);
    }

    /** Up to four resources with distinct variable names, each with one to four devices. */
    @Provide
    Arbitrary<List<Allocated>> allocations() {
        Arbitrary<ResourceName> names = Arbitraries.oneOf(
                Arbitraries.of("nvidia.com/TU104GL_TESLA_T4", "nvidia.com/GRID_T4-1Q", "nvidia.com/NVIDIA_L40S-4Q", "example.org/nic.v2",
                        "intel.com/i350-vf").map(ResourceName::of),
                io.vfiodp.policy.ResourceNameArbitraries.valid());
        Arbitrary<Allocated> one = names.flatMap(n -> Arbitraries.of(DeviceKind.values())
                .flatMap(kind -> devices(kind).map(ds -> new Allocated(n, kind, ds))));
        return one.list().ofMinSize(1).ofMaxSize(4)
                .filter(list -> list.stream().map(a -> KubeVirtEnv.variableName(DeviceKind.PCI, a.name())).distinct().count() == list.size())
                .filter(list -> list.stream().flatMap(a -> a.devices().stream().map(ExposedDevice::id)).distinct().count()
                        == list.stream().mapToLong(a -> a.devices().size()).sum());
    }

    private static Arbitrary<List<ExposedDevice>> devices(DeviceKind kind) {
        Arbitrary<ExposedDevice> device = kind == DeviceKind.PCI
                ? Combinators.combine(io.vfiodp.host.PciAddressArbitraries.addresses(), Arbitraries.integers().between(0, 7).set().ofMaxSize(3))
                        .as((a, fns) -> pci(a, fns))
                : Arbitraries.strings().withChars("0123456789abcdef").ofLength(32).map(h -> mdev(h));
        return device.list().ofMinSize(1).ofMaxSize(4).uniqueElements(ExposedDevice::id)
                .filter(ds -> ds.stream().map(ExposedDevice::pciAddress).distinct().count() == ds.size() || kind == DeviceKind.MDEV);
    }

    private static ExposedDevice pci(PciAddress a, Set<Integer> companionFunctions) {
        List<PciAddress> companions = companionFunctions.stream().filter(f -> f != a.function()).sorted().map(a::withFunction).toList();
        return new ExposedDevice(a.toString(), DeviceKind.PCI, a, 7, -1, companions, Optional.empty(), List.of(), Health.HEALTHY);
    }

    private static ExposedDevice mdev(String hex) {
        String uuid = hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-" + hex.substring(16, 20) + "-" + hex.substring(20);
        return new ExposedDevice(uuid, DeviceKind.MDEV, PciAddress.parse("0000:3b:00.0"), 7, -1, List.of(), Optional.empty(), List.of(), Health.HEALTHY);
    }
}
