package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.fixtures.FixtureNodes;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.KubeVirtEnv;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.AllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerAllocateResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.DeviceSpec;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.PreferredAllocationResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Allocate and GetPreferredAllocation over the resources the default policy makes of every
 * fixture node (PCI GPUs with companions, mdevs, SR-IOV vGPU VFs on an iommufd host), with any
 * devices marked unhealthy.
 */
class AllocationProperties {

    private final Map<String, TargetState> nodes = new HashMap<>();

    /** One resource of a fixture node, with some of its devices unhealthy. */
    record Served(String fixture, ResourceName resource, Set<String> unhealthy, ResourceView view) {
        @Override
        public String toString() {
            return fixture + " " + resource + " unhealthy " + unhealthy;
        }

        List<String> healthy() {
            return view.devices().values().stream().filter(d -> d.health().isHealthy()).map(ExposedDevice::id).toList();
        }
    }

    record AllocateCase(Served served, List<List<String>> containers) {}

    enum Fault { UNKNOWN_ID, OTHER_RESOURCES_ID, UNHEALTHY_ID, SAME_ID_TWICE, EMPTY_CONTAINER, NO_CONTAINER }

    record FaultyCase(Served served, List<List<String>> containers, Fault fault, String culprit) {}

    record PreferCase(Served served, List<String> available, List<String> mustInclude, int size) {}

    @Property(tries = 500)
    void healthyDevicesGetExactlyTheirVariableAndVfioNodes(@ForAll("healthyAllocations") AllocateCase c) {
        ResourceView view = c.served().view();
        Map<String, ExposedDevice> before = Map.copyOf(view.devices());
        ListAndWatchResponse listBefore = view.listAndWatchResponse();

        RpcOutcome<AllocateResponse> outcome = Allocation.allocate(view, request(c.containers()));

        assertThat(outcome).isInstanceOf(RpcOutcome.Granted.class);
        AllocateResponse response = ((RpcOutcome.Granted<AllocateResponse>) outcome).response();
        assertThat(response.getContainerResponsesCount()).isEqualTo(c.containers().size());
        for (int i = 0; i < c.containers().size(); i++) {
            assertContainer(view, c.containers().get(i), response.getContainerResponses(i));
        }
        assertThat(view.devices()).isEqualTo(before);
        assertThat(view.listAndWatchResponse()).isEqualTo(listBefore);
    }

    private static void assertContainer(ResourceView view, List<String> ids, ContainerAllocateResponse r) {
        List<ExposedDevice> devices = ids.stream().map(id -> view.device(id).orElseThrow()).toList();
        Map<String, String> envs = new LinkedHashMap<>();
        envs.put(KubeVirtEnv.variableName(view.kind(), view.name()), String.join(",", ids));
        if (view.kind() == DeviceKind.PCI && devices.stream().anyMatch(d -> !d.companions().isEmpty())) {
            Map<PciAddress, List<PciAddress>> companions = new LinkedHashMap<>();
            for (ExposedDevice d : devices) companions.put(d.pciAddress(), d.companions());
            envs.put(KubeVirtEnv.companionsVariableName(view.name()), KubeVirtEnv.encodeCompanions(companions));
        }
        assertThat(r.getEnvsMap()).isEqualTo(envs);

        Set<String> paths = new TreeSet<>();
        paths.add("/dev/vfio/vfio");
        for (ExposedDevice d : devices) paths.add("/dev/vfio/" + d.iommuGroup());
        if (view.devNodes().iommu()) paths.add("/dev/iommu");
        for (ExposedDevice d : devices) {
            d.vfioCdev().filter(view.devNodes().vfioCdevs()::contains).ifPresent(cdev -> paths.add("/dev/vfio/devices/" + cdev));
        }
        assertThat(r.getDevicesList()).extracting(DeviceSpec::getHostPath).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(paths);
        assertThat(r.getDevicesList()).allSatisfy(s -> {
            assertThat(s.getContainerPath()).isEqualTo(s.getHostPath());
            assertThat(s.getPermissions()).isEqualTo("mrw");
        });
        assertThat(r.getMountsList()).isEmpty();
        assertThat(r.getAnnotationsMap()).isEmpty();
        assertThat(r.getCdiDevicesList()).isEmpty();
    }

    @Property(tries = 500)
    void invalidRequestIsRefusedNamingTheCulpritAndChangesNothing(@ForAll("faultyAllocations") FaultyCase c) {
        ResourceView view = c.served().view();
        Map<String, ExposedDevice> before = Map.copyOf(view.devices());
        ListAndWatchResponse listBefore = view.listAndWatchResponse();

        RpcOutcome<AllocateResponse> outcome = Allocation.allocate(view, request(c.containers()));

        assertThat(outcome).isInstanceOf(RpcOutcome.Refused.class);
        RpcOutcome.Refused<AllocateResponse> refused = (RpcOutcome.Refused<AllocateResponse>) outcome;
        assertThat(refused.code()).isEqualTo(c.fault() == Fault.UNHEALTHY_ID ? Status.Code.FAILED_PRECONDITION : Status.Code.INVALID_ARGUMENT);
        assertThat(refused.message()).startsWith("Allocate " + view.name() + ": ").contains(c.culprit());
        assertThat(view.devices()).isEqualTo(before);
        assertThat(view.listAndWatchResponse()).isEqualTo(listBefore);
    }

    @Property(tries = 500)
    void preferredAllocationIsAvailableHealthyHoldsTheMustIncludesAndHasTheSizeWhenItCan(@ForAll("preferences") PreferCase c) {
        ResourceView view = c.served().view();
        PreferredAllocationRequest request = PreferredAllocationRequest.newBuilder().addContainerRequests(
                ContainerPreferredAllocationRequest.newBuilder().addAllAvailableDeviceIDs(c.available())
                        .addAllMustIncludeDeviceIDs(c.mustInclude()).setAllocationSize(c.size())).build();

        RpcOutcome<PreferredAllocationResponse> outcome = PreferredAllocation.prefer(view, request);

        assertThat(outcome).isInstanceOf(RpcOutcome.Granted.class);
        List<String> chosen = ((RpcOutcome.Granted<PreferredAllocationResponse>) outcome).response().getContainerResponses(0).getDeviceIDsList();
        Set<String> eligible = new HashSet<>(c.mustInclude());
        for (String id : c.available()) view.device(id).filter(d -> d.health().isHealthy()).ifPresent(d -> eligible.add(id));
        assertThat(chosen).isSorted().doesNotHaveDuplicates().containsAll(c.mustInclude());
        assertThat(eligible).containsAll(chosen);
        assertThat(chosen).hasSize(Math.min(c.size(), eligible.size()));
    }

    private static AllocateRequest request(List<List<String>> containers) {
        AllocateRequest.Builder b = AllocateRequest.newBuilder();
        for (List<String> ids : containers) b.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids));
        return b.build();
    }

    @Provide
    Arbitrary<AllocateCase> healthyAllocations() {
        return served().filter(s -> !s.healthy().isEmpty())
                .flatMap(s -> containers(s.healthy()).map(cs -> new AllocateCase(s, cs)));
    }

    @Provide
    Arbitrary<FaultyCase> faultyAllocations() {
        return Combinators.combine(served(), Arbitraries.of(Fault.values())).as((s, f) -> Map.entry(s, f))
                .filter(e -> applicable(e.getKey(), e.getValue()))
                .flatMap(e -> faulty(e.getKey(), e.getValue()));
    }

    @Provide
    Arbitrary<PreferCase> preferences() {
        return served().flatMap(s -> {
            List<String> ids = new ArrayList<>(s.view().devices().keySet());
            Arbitrary<List<String>> strangers = Arbitraries.of(otherIds(s)).list().ofMaxSize(2);
            return Combinators.combine(Arbitraries.subsetOf(ids), strangers, Arbitraries.randoms()).as((own, other, random) -> {
                List<String> available = new ArrayList<>(own);
                available.addAll(other);
                Collections.shuffle(available, random);
                List<String> must = own.stream().filter(id -> random.nextInt(4) == 0).sorted().toList();
                int size = Math.max(1, must.size() + random.nextInt(available.size() + 2 - must.size()));
                return new PreferCase(s, available, must, size);
            });
        });
    }

    private Arbitrary<Served> served() {
        return Arbitraries.of(FixtureNodes.NODES).map(this::node)
                .flatMap(node -> Arbitraries.of(node.plugins().resources().values().stream()
                        .filter(r -> !r.devices().isEmpty()).toList())
                        .flatMap(r -> Arbitraries.subsetOf(r.devices().stream().map(ExposedDevice::id).toList()).map(unhealthy -> {
                            SortedMap<ResourceName, ResourceView> views = ResourceView.allOf(
                                    Devices.unhealthy(node, Set.copyOf(unhealthy), "/dev/vfio node gone"));
                            return new Served(fixtureOf(node), r.name(), new TreeSet<>(unhealthy), views.get(r.name()));
                        })));
    }

    /** {@code ids} shuffled and cut into one to three non-empty container requests. */
    private static Arbitrary<List<List<String>>> containers(List<String> ids) {
        return Combinators.combine(Arbitraries.subsetOf(ids).filter(s -> !s.isEmpty()), Arbitraries.randoms()).as((chosen, random) -> {
            List<String> order = new ArrayList<>(chosen);
            Collections.shuffle(order, random);
            int parts = 1 + random.nextInt(Math.min(3, order.size()));
            List<List<String>> out = new ArrayList<>();
            for (int p = 0; p < parts; p++) {
                out.add(order.subList(p * order.size() / parts, (p + 1) * order.size() / parts));
            }
            return out;
        });
    }

    private boolean applicable(Served s, Fault f) {
        return switch (f) {
            case OTHER_RESOURCES_ID -> !otherResourceIds(s).isEmpty();
            case UNHEALTHY_ID -> !s.unhealthy().isEmpty();
            case SAME_ID_TWICE, EMPTY_CONTAINER -> !s.healthy().isEmpty();
            default -> true;
        };
    }

    private Arbitrary<FaultyCase> faulty(Served s, Fault f) {
        Arbitrary<List<List<String>>> valid = s.healthy().isEmpty() ? Arbitraries.just(List.of()) : containers(s.healthy());
        Arbitrary<String> culprit = switch (f) {
            case UNKNOWN_ID -> Arbitraries.oneOf(io.vfiodp.host.PciAddressArbitraries.addresses().map(PciAddress::toString),
                    Arbitraries.strings().ofMinLength(1).ofMaxLength(12)).filter(id -> !allIds(s).contains(id));
            case OTHER_RESOURCES_ID -> Arbitraries.of(otherResourceIds(s));
            case UNHEALTHY_ID -> Arbitraries.of(s.unhealthy());
            case SAME_ID_TWICE, EMPTY_CONTAINER, NO_CONTAINER -> Arbitraries.just("");
        };
        return Combinators.combine(valid, culprit, Arbitraries.randoms()).as((containers, drawn, random) -> {
            List<List<String>> out = new ArrayList<>(containers.stream().map(ArrayList::new).toList());
            List<String> requested = containers.stream().flatMap(List::stream).toList();
            // a repeat repeats an ID already asked for
            String id = f == Fault.SAME_ID_TWICE ? requested.get(random.nextInt(requested.size())) : drawn;
            switch (f) {
                case NO_CONTAINER -> out.clear();
                case EMPTY_CONTAINER -> out.add(random.nextInt(out.size() + 1), new ArrayList<>());
                default -> {
                    if (out.isEmpty()) out.add(new ArrayList<>());
                    List<String> into = out.get(random.nextInt(out.size()));
                    into.add(random.nextInt(into.size() + 1), id);
                }
            }
            String shown = switch (f) {
                case EMPTY_CONTAINER -> "lists no device IDs";
                case NO_CONTAINER -> "has no container requests";
                default -> "device " + id + " ";
            };
            return new FaultyCase(s, out, f, shown);
        });
    }

    private List<String> otherResourceIds(Served s) {
        List<String> ids = new ArrayList<>(allIds(s));
        ids.removeAll(s.view().devices().keySet());
        return ids;
    }

    private List<String> otherIds(Served s) {
        List<String> ids = otherResourceIds(s);
        ids.add("0000:ff:1f.7");
        return ids;
    }

    private Set<String> allIds(Served s) {
        Set<String> ids = new LinkedHashSet<>();
        node(s.fixture()).plugins().resources().values().forEach(r -> r.devices().forEach(d -> ids.add(d.id())));
        return ids;
    }

    private TargetState node(String fixture) {
        return nodes.computeIfAbsent(fixture, f -> {
            try {
                HostSnapshot s = new SysfsScanner(SysfsFixtures.sys(f), SysfsFixtures.dev(f)).scan();
                return new TargetState(PolicyEngine.evaluate(s, Optional.empty(), PciIds.bundled()).desiredState(), s.devNodes());
            } catch (IOException e) {
                throw new IllegalStateException("cannot load the bundled pci.ids", e);
            }
        });
    }

    private String fixtureOf(TargetState node) {
        return nodes.entrySet().stream().filter(e -> e.getValue() == node).map(Map.Entry::getKey).findFirst().orElseThrow();
    }
}
