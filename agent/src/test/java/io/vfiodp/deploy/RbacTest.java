package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.api.model.rbac.SubjectBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vfiodp.kube.HolderEvents;
import io.vfiodp.kube.LauncherPodFixtures;
import io.vfiodp.kube.MockKubeApi;
import io.vfiodp.kube.NodeEventRecorder;
import io.vfiodp.kube.PodsOnNode;
import io.vfiodp.kube.NodeLayoutEvents;
import io.vfiodp.kube.kubevirt.KubeVirtPolicyFollower;
import io.vfiodp.vgpu.LayoutState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The RBAC of deploy/ is derived from the code: the real KubeVirt follower, Node event recorder
 * and vGPU node annotation run against a mock API server that records every request; each
 * request must be allowed by the rendered rules, and each rule must be used by some request.
 */
class RbacTest {

    private static final String NODE = "gpu-node-7";
    private static final String LAUNCHER = "virt-launcher-vm1-x7k2p";
    private static final Subject PLUGIN = new SubjectBuilder().withKind("ServiceAccount").withName("vfio-device-plugin")
            .withNamespace("vfio-device-plugin").build();

    /** What serve (--kubevirt auto, NODE_NAME set) calls, and what --manage-vgpus adds. */
    private static List<ApiCall> serveCalls;
    private static List<ApiCall> manageVgpusCalls;

    static Stream<Manifests> base() {
        return Manifests.of("base").stream();
    }

    static Stream<Manifests> overlay() {
        return Manifests.of("overlays/vgpu").stream();
    }

    @BeforeAll
    static void recordTheCallsTheCodeMakes() throws Exception {
        try (MockKubeApi api = MockKubeApi.start().withKubeVirtCrd().withVmiCrd()) {
            api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
            LauncherPodFixtures.createVm(api.client(), "vms", LAUNCHER, NODE, "vm1", Optional.of("vm1"));
            List<RecordedRequest> setup = drain(api, api.server().getRequestCount());
            assertThat(setup).isNotEmpty();

            try (KubernetesClient client = MockKubeApi.clientFor(api.port())) {
                KubeVirtPolicyFollower follower = KubeVirtPolicyFollower.start(client, Optional.of(NODE), Optional.empty(),
                        readable -> { }, Duration.ofSeconds(30));
                PodsOnNode pods = PodsOnNode.create(client, NODE);
                try {
                    NodeEventRecorder events = follower.events().orElseThrow();
                    events.warn("VfioDeviceUnhealthy", "device 0000:1a:00.0 is now Unhealthy");
                    // which VM holds which device: the node's pods, a launcher pod's VMI, Events on both
                    pods.start(() -> { });
                    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> pods.details().vmiOf("vms", LAUNCHER)
                            .flatMap(io.vfiodp.holders.Holder.Vmi::vm).isPresent());
                    holderEvents(events, pods);
                    serveCalls = await(api, calls -> calls.contains("watch kubevirt.io/kubevirts in all namespaces")
                            && calls.contains("watch /nodes in all namespaces") && calls.contains("create /events in default")
                            && calls.contains("watch /pods in all namespaces") && calls.contains("get kubevirt.io/virtualmachineinstances in vms")
                            && calls.contains("create /events in vms"));

                    NodeLayoutEvents layout = new NodeLayoutEvents(client, NODE, follower.events().orElseThrow());
                    layout.state(LayoutState.PENDING, "creating 4 vGPUs");
                    manageVgpusCalls = new ArrayList<>(serveCalls);
                    manageVgpusCalls.addAll(await(api, calls -> calls.contains("get /nodes in all namespaces")
                            && calls.contains("patch /nodes in all namespaces")));
                } finally {
                    pods.close();
                    follower.close();
                }
            }
        }
    }

    /** A device the launcher pod holds turns Unhealthy: an Event on the pod and one on its VMI, both in the pod's namespace. */
    private static void holderEvents(NodeEventRecorder events, PodsOnNode pods) {
        io.vfiodp.holders.Holder holder = new io.vfiodp.holders.Holder("vms", LAUNCHER, "compute",
                new io.vfiodp.holders.Holder.Via.Plugin("nvidia.com/T4"), pods.details().vmiOf("vms", LAUNCHER));
        io.vfiodp.holders.OfferedDevice sick = new io.vfiodp.holders.OfferedDevice("0000:1a:00.0", io.vfiodp.policy.ResourceName.of("nvidia.com/T4"),
                io.vfiodp.policy.Route.DEVICE_PLUGIN, "pci-0000-1a-00-0", io.vfiodp.policy.Health.unhealthy("test"));
        new HolderEvents(events, pods::details).tell(List.of(new io.vfiodp.holders.HealthNotices.Notice(holder, List.of("compute"), sick)));
    }

    private static List<RecordedRequest> drain(MockKubeApi api, int count) throws InterruptedException {
        List<RecordedRequest> out = new ArrayList<>();
        for (int i = 0; i < count; i++) out.add(api.server().takeRequest(5, TimeUnit.SECONDS));
        return out;
    }

    /** Resource requests recorded from now until {@code done} holds for the grants they need (at most 30 s). */
    private static List<ApiCall> await(MockKubeApi api, Predicate<Set<String>> done) throws InterruptedException {
        List<ApiCall> calls = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.test(grantsNeeded(calls))) {
            long left = deadline - System.nanoTime();
            RecordedRequest r = left > 0 ? api.server().takeRequest(left, TimeUnit.NANOSECONDS) : null;
            if (r == null) throw new AssertionError("the expected calls did not come within 30 s; seen: " + grantsNeeded(calls));
            ApiCall.of(r).ifPresent(calls::add);
        }
        return calls;
    }

    private static Set<String> grantsNeeded(List<ApiCall> calls) {
        Set<String> out = new TreeSet<>();
        calls.forEach(c -> out.add(c.grantNeeded()));
        return out;
    }

    /** Every {@code verb group/resource in scope} the rendered RBAC gives the plugin's ServiceAccount. */
    private static Set<String> granted(Manifests m) {
        Set<String> out = new TreeSet<>();
        for (HasMetadata o : m.objects()) {
            if (o instanceof ClusterRoleBinding b && b.getSubjects().contains(PLUGIN)) {
                addGrants(out, m.one(ClusterRole.class, b.getRoleRef().getName()).getRules(), "all namespaces");
            } else if (o instanceof RoleBinding b && b.getSubjects().contains(PLUGIN)) {
                assertThat(b.getRoleRef().getKind()).as("RoleBinding " + b.getMetadata().getName() + " binds a Role").isEqualTo("Role");
                Role role = m.one(Role.class, b.getRoleRef().getName());
                assertThat(role.getMetadata().getNamespace()).isEqualTo(b.getMetadata().getNamespace());
                addGrants(out, role.getRules(), b.getMetadata().getNamespace());
            }
        }
        return out;
    }

    private static void addGrants(Set<String> out, List<PolicyRule> rules, String scope) {
        for (PolicyRule r : rules) {
            assertThat(r.getResourceNames()).as("resourceNames cannot name the own node of every pod of a DaemonSet").isNullOrEmpty();
            for (String group : r.getApiGroups()) {
                for (String resource : r.getResources()) {
                    for (String verb : r.getVerbs()) out.add(verb + " " + group + "/" + resource + " in " + scope);
                }
            }
        }
    }

    /** A grant for all namespaces covers a call in one namespace too. */
    private static boolean allowed(Set<String> granted, ApiCall call) {
        return granted.contains(call.grantNeeded())
                || granted.contains(call.verb() + " " + call.group() + "/" + call.resource() + " in all namespaces");
    }

    private static void assertExactlyWhatTheCallsNeed(Manifests m, List<ApiCall> calls) {
        Set<String> granted = granted(m);
        Set<String> used = new TreeSet<>();
        for (ApiCall call : calls) {
            assertThat(allowed(granted, call)).as(call + " allowed by " + granted).isTrue();
            used.add(granted.contains(call.grantNeeded()) ? call.grantNeeded()
                    : call.verb() + " " + call.group() + "/" + call.resource() + " in all namespaces");
        }
        assertThat(granted).as("every grant is used by some call").isEqualTo(used);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void baseAllowsEveryCallServeMakesAndNothingMore(Manifests m) {
        assertExactlyWhatTheCallsNeed(m, serveCalls);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overlay")
    void vgpuOverlayAllowsEveryCallManageVgpusMakesAndNothingMore(Manifests m) {
        assertExactlyWhatTheCallsNeed(m, manageVgpusCalls);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void everyNodeCallNamesTheOwnNode(Manifests m) {
        assertThat(manageVgpusCalls).filteredOn(c -> c.resource().equals("nodes"))
                .isNotEmpty()
                .allSatisfy(c -> assertThat(c.name()).as(c.toString()).contains(NODE));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void clusterRoleReadsKubeVirtCrsWatchesNodesAndPodsReadsVmisAndPostsEvents(Manifests m) {
        assertThat(m.one(ClusterRole.class, "vfio-device-plugin").getRules()).containsExactly(
                new PolicyRuleBuilder().withApiGroups("kubevirt.io").withResources("kubevirts").withVerbs("list", "watch").build(),
                new PolicyRuleBuilder().withApiGroups("").withResources("nodes").withVerbs("list", "watch").build(),
                new PolicyRuleBuilder().withApiGroups("").withResources("pods").withVerbs("list", "watch").build(),
                new PolicyRuleBuilder().withApiGroups("kubevirt.io").withResources("virtualmachineinstances").withVerbs("get").build(),
                new PolicyRuleBuilder().withApiGroups("").withResources("events").withVerbs("create").build());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void podCallsWatchOnlyTheOwnNodesPodsAndEventsGoWhereTheirObjectIs(Manifests m) {
        assertThat(serveCalls).filteredOn(c -> c.resource().equals("pods")).isNotEmpty();
        assertThat(serveCalls).filteredOn(c -> c.resource().equals("events")).extracting(c -> c.namespace().orElseThrow())
                .contains("default", "vms").containsOnly("default", "vms");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("base")
    void theBindingNamesOnlyThePluginsServiceAccount(Manifests m) {
        assertThat(m.one(ClusterRoleBinding.class, "vfio-device-plugin").getSubjects()).containsExactly(PLUGIN);
        assertThat(m.objects()).noneMatch(o -> o instanceof RoleBinding || o instanceof Role);
    }
}
