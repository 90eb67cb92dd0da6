package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vfiodp.dra.Claims;
import io.vfiodp.dra.DraHarness;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.vfiodp.dra.DraNodes;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.Health;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * deploy/dra's ClusterRole is derived from the code: the DRA driver publishes slices, reads the
 * DeviceClasses its resources need, changes the slices on a health change, deletes them when
 * nothing is routed to DRA any more and prepares a claim (whose status it then writes),
 * against a mock API server that records every request; each request must be allowed by the rule,
 * and each grant must be used by some request.
 */
class DraRbacTest {

    @TempDir static Path root;
    private static List<ApiCall> calls;

    static Stream<Manifests> dra() {
        return Manifests.of("dra").stream();
    }

    @BeforeAll
    static void recordTheCallsTheDriverMakes() {
        try (DraHarness h = new DraHarness(root)) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu-claim", "u", Claims.ours("pci-0000-1a-00-0")));
            int setup = h.api.server().getRequestCount();
            h.start(DraNodes.allDra("t4-numa"));
            await().atMost(Duration.ofSeconds(30)).until(() -> h.slices().size() == 1);
            await().atMost(Duration.ofSeconds(30)).until(() -> !h.classes.isEmpty());
            h.driver.apply(DraNodes.withHealth(DraNodes.allDra("t4-numa"), "0000:1a:00.0", Health.unhealthy("test")));
            await().atMost(Duration.ofSeconds(30)).until(() -> h.slices().getFirst().getSpec().getDevices().stream()
                    .anyMatch(d -> d.getTaints() != null && !d.getTaints().isEmpty() && d.getName().equals("pci-0000-1a-00-0")));
            h.driver.apply(DraNodes.allDra("t4-numa"));
            assertThat(h.kubelet.prepare(DraKubeletSimulator.claim("vms", "gpu-claim", c.getMetadata().getUid()))
                    .getClaimsOrThrow(c.getMetadata().getUid()).getError()).isEmpty();
            // written after the answer, on the driver's API thread
            await().atMost(Duration.ofSeconds(30)).until(() -> h.api.client().dynamicResourceAllocation().v1().resourceClaims()
                    .inNamespace(c.getMetadata().getNamespace()).withName("gpu-claim").get().getStatus().getDevices(), d -> d != null && !d.isEmpty());
            h.driver.apply(DraNodes.state("t4-numa", DraRouting.NONE));
            await().atMost(Duration.ofSeconds(30)).until(() -> h.slices().isEmpty());
            List<ApiCall> all = new ArrayList<>();
            for (int i = 0; i < h.api.server().getRequestCount(); i++) {
                RecordedRequest r = h.api.server().takeRequest(5, TimeUnit.SECONDS);
                if (i >= setup) ApiCall.of(r).ifPresent(all::add);
            }
            // the test's own reads of the slices (list) are not the driver's
            calls = all.stream().filter(a -> !a.verb().equals("list")).toList();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static Set<String> granted(Manifests m) {
        ClusterRoleBinding b = m.one(ClusterRoleBinding.class, "vfio-device-plugin-dra");
        assertThat(b.getSubjects()).singleElement().satisfies(s -> assertThat(s.getName() + "/" + s.getNamespace())
                .isEqualTo("vfio-device-plugin/vfio-device-plugin"));
        Set<String> out = new TreeSet<>();
        for (PolicyRule r : m.one(ClusterRole.class, b.getRoleRef().getName()).getRules()) {
            assertThat(r.getResourceNames()).isNullOrEmpty();
            for (String g : r.getApiGroups()) for (String res : r.getResources()) for (String v : r.getVerbs()) out.add(v + " " + g + "/" + res);
        }
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dra")
    void theDraRoleAllowsEveryCallTheDriverMakesAndNothingMore(Manifests m) {
        Set<String> needed = new TreeSet<>();
        calls.forEach(c -> needed.add(c.verb() + " " + c.group() + "/" + c.resource()));
        assertThat(granted(m)).isEqualTo(needed).isEqualTo(new TreeSet<>(Set.of("get resource.k8s.io/resourceclaims",
                "patch resource.k8s.io/resourceclaims/status",
                "get resource.k8s.io/resourceslices", "create resource.k8s.io/resourceslices", "update resource.k8s.io/resourceslices",
                "delete resource.k8s.io/resourceslices", "get resource.k8s.io/deviceclasses", "get /nodes")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dra")
    void everyNodeAndSliceCallNamesTheOwnNodesObject(Manifests m) {
        assertThat(calls).filteredOn(c -> c.resource().equals("nodes")).isNotEmpty().allSatisfy(c -> assertThat(c.name()).contains("node-a"));
        assertThat(calls).filteredOn(c -> c.resource().equals("resourceslices") && !c.verb().equals("create")).isNotEmpty()
                .allSatisfy(c -> assertThat(c.name().orElseThrow()).startsWith("node-a-vfio-device-plugin.io-"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dra")
    void theDeviceClassesAreReadByTheNamesOfTheRoutedResourcesAndNeverWritten(Manifests m) {
        assertThat(calls).filteredOn(c -> c.resource().equals("deviceclasses")).isNotEmpty().allSatisfy(c -> {
            assertThat(c.verb()).isEqualTo("get");
            assertThat(c.name()).contains("tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io");
        });
    }
}
