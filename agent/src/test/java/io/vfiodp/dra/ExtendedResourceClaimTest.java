package io.vfiodp.dra;

import static io.vfiodp.testkit.dra.DraKubeletSimulator.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.node.TargetState;
import io.vfiodp.proto.dra.v1.Device;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.proto.dra.v1.NodePrepareResourcesResponse;
import io.vfiodp.testkit.dra.CdiRuntime;
import io.vfiodp.testkit.dra.ExtendedResourceClaim;
import io.vfiodp.testkit.dra.ExtendedResourcePod;
import io.vfiodp.testkit.dra.ExtendedResourceScheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler's special claim of a pod's extended resources, prepared by our driver: one CDI
 * device per request on the request's first device, one variable per container with its own
 * devices, a bad claim refused alone, and the same answer after the driver restarts.
 */
class ExtendedResourceClaimTest {

    private static final String T4 = "nvidia.com/TU104GL_TESLA_T4";
    private static final String ENV = "PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4";
    private static final String DRIVER = DraNodes.DRIVER;

    @TempDir Path root;

    private static ExtendedResourcePod.Container asking(String name, long n) {
        return new ExtendedResourcePod.Container(name, new TreeMap<>(Map.of("cpu", 1L, T4, n)));
    }

    private static ExtendedResourcePod pod(String name, ExtendedResourcePod.Container... containers) {
        return new ExtendedResourcePod("vms", name, name + "-uid", List.of(containers));
    }

    @Test
    void aRequestOfTwoDevicesHasItsOneCdiDeviceOnItsFirstDeviceOnly() {
        TargetState node = DraNodes.allDra("t4-numa");
        try (DraHarness h = new DraHarness(root).start(node)) {
            var s = ExtendedResourcePods.schedule(h.api.client(), node, pod("vm", asking("compute", 2)),
                    Map.of(T4, List.of("0000:1a:00.0", "0000:b1:00.0")));

            NodePrepareResourceResponse r = h.kubelet.prepare(claim("vms", s.claim().name(), s.uid())).getClaimsOrThrow(s.uid());

            assertThat(r.getDevicesList()).containsExactly(
                    Device.newBuilder().addRequestNames("container-0-request-1").setPoolName("node-a").setDeviceName("pci-0000-1a-00-0")
                            .addCdiDeviceIds(DRIVER + "/vfio=" + s.uid() + "-container-0-request-1").build(),
                    Device.newBuilder().addRequestNames("container-0-request-1").setPoolName("node-a").setDeviceName("pci-0000-b1-00-0").build());
        }
    }

    @Test
    void theCdiDeviceSetsTheVariableOnceWithEveryDeviceAndNoMetadata() throws IOException {
        TargetState node = DraNodes.allDra("t4-numa");
        try (DraHarness h = new DraHarness(root).start(node)) {
            var s = ExtendedResourcePods.schedule(h.api.client(), node, pod("vm", asking("compute", 2)),
                    Map.of(T4, List.of("0000:1a:00.0", "0000:b1:00.0")));
            h.kubelet.prepare(claim("vms", s.claim().name(), s.uid()));

            assertThat(Files.readString(h.settings.cdiDir().resolve(DRIVER + "_vfio_" + s.uid() + ".json"))).isEqualTo("""
                    {
                      "cdiVersion": "0.5.0",
                      "kind": "vfio-device-plugin.io/vfio",
                      "devices": [
                        {
                          "name": "%s-container-0-request-1",
                          "containerEdits": {
                            "env": [
                              "PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:1a:00.0,0000:b1:00.0"
                            ],
                            "deviceNodes": [
                              {
                                "path": "/dev/vfio/vfio",
                                "permissions": "rwm"
                              },
                              {
                                "path": "/dev/vfio/24",
                                "permissions": "rwm"
                              },
                              {
                                "path": "/dev/vfio/64",
                                "permissions": "rwm"
                              }
                            ]
                          }
                        }
                      ]
                    }
                    """.formatted(s.uid()));
            try (var files = Files.list(h.settings.cdiDir())) {
                assertThat(files.map(p -> p.getFileName().toString())).containsExactly(DRIVER + "_vfio_" + s.uid() + ".json");
            }
            assertThat(h.settings.pluginDir().resolve("dra-device-metadata")).doesNotExist();
        }
    }

    @Test
    void twoContainersAskingTheResourceGetAVariableEachWithTheirOwnDevices() {
        TargetState node = DraNodes.allDra("t4-numa");
        try (DraHarness h = new DraHarness(root).start(node)) {
            var s = ExtendedResourcePods.schedule(h.api.client(), node, pod("two", asking("a", 1), asking("b", 2)),
                    Map.of(T4, List.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0")));

            Map<String, CdiRuntime.Edits> containers = ExtendedResourcePods.start(h, s);

            assertThat(containers.get("a").env()).containsExactly(Map.entry(ENV, "0000:1a:00.0"));
            assertThat(containers.get("a").hostPaths()).containsExactly("/dev/vfio/vfio", "/dev/vfio/24");
            assertThat(containers.get("b").env()).containsExactly(Map.entry(ENV, "0000:1b:00.0,0000:b1:00.0"));
            assertThat(containers.get("b").hostPaths()).containsExactly("/dev/vfio/vfio", "/dev/vfio/25", "/dev/vfio/64");
            assertThat(containers.values()).allSatisfy(e -> assertThat(e.overwritten()).isEmpty());
        }
    }

    private static ResourceClaim special(ExtendedResourceClaim claim) {
        return Serialization.unmarshal(claim.claimJson(), ResourceClaim.class);
    }

    @Test
    void aBadSpecialClaimIsRefusedAloneAndTheOtherClaimsOfTheCallArePrepared() {
        TargetState node = DraNodes.allDra("t4-numa");
        try (DraHarness h = new DraHarness(root).start(node)) {
            var good = ExtendedResourcePods.schedule(h.api.client(), node, pod("good", asking("compute", 1)), Map.of(T4, List.of("0000:1a:00.0")));
            ExtendedResourceClaim shape = ExtendedResourceScheduler.schedule(pod("x", asking("compute", 1)), ExtendedResourcePods.classes(node),
                    Map.of(T4, List.of(new ExtendedResourceScheduler.Candidate(DRIVER, DraNodes.NODE, "pci-0000-1b-00-0"))));
            ResourceClaim otherDriver = special(shape);
            otherDriver.getMetadata().setName("other-driver");
            otherDriver.getStatus().getAllocation().getDevices().getResults().getFirst().setDriver("gpu.nvidia.com");
            ResourceClaim unknown = special(shape);
            unknown.getMetadata().setName("unknown-device");
            unknown.getStatus().getAllocation().getDevices().getResults().getFirst().setDevice("pci-0000-ff-00-0");
            ResourceClaim unallocated = special(shape);
            unallocated.getMetadata().setName("unallocated");
            unallocated.getStatus().setAllocation(null);
            ResourceClaim ordinary = Claims.allocated("ordinary", "u", Claims.ours("pci-0000-b1-00-0"));
            List<ResourceClaim> stored = List.of(otherDriver, unknown, unallocated, ordinary).stream().map(c -> Claims.create(h.api.client(), c)).toList();

            NodePrepareResourcesResponse r = h.kubelet.prepare(claim("vms", "other-driver", uid(stored, 0)), claim("vms", "unknown-device", uid(stored, 1)),
                    claim("vms", good.claim().name(), good.uid()), claim("vms", "unallocated", uid(stored, 2)), claim("vms", "ordinary", uid(stored, 3)));

            assertThat(r.getClaimsOrThrow(uid(stored, 0)).getError()).isEqualTo("ResourceClaim vms/other-driver allocates no device of driver " + DRIVER);
            assertThat(r.getClaimsOrThrow(uid(stored, 1)).getError()).isEqualTo("ResourceClaim vms/unknown-device allocation result 0: device"
                    + " pci-0000-ff-00-0 is not one this node offers through DRA");
            assertThat(r.getClaimsOrThrow(uid(stored, 2)).getError()).isEqualTo("ResourceClaim vms/unallocated is not allocated");
            assertThat(r.getClaimsOrThrow(good.uid()).getError()).isEmpty();
            assertThat(r.getClaimsOrThrow(good.uid()).getDevicesList()).extracting(Device::getDeviceName).containsExactly("pci-0000-1a-00-0");
            assertThat(r.getClaimsOrThrow(uid(stored, 3)).getError()).isEmpty();
            assertThat(h.heard).filteredOn(l -> l.startsWith("prepare failed")).hasSize(3);
        }
    }

    private static String uid(List<ResourceClaim> stored, int i) {
        return stored.get(i).getMetadata().getUid();
    }

    @Test
    void aPreparedSpecialClaimIsAnsweredIdenticallyAfterTheDriverRestartsWithoutTheApi() throws IOException {
        TargetState node = DraNodes.allDra("t4-numa");
        try (DraHarness h = new DraHarness(root).start(node)) {
            var s = ExtendedResourcePods.schedule(h.api.client(), node, pod("vm", asking("compute", 2)),
                    Map.of(T4, List.of("0000:1a:00.0", "0000:b1:00.0")));
            NodePrepareResourcesResponse before = h.kubelet.prepare(claim("vms", s.claim().name(), s.uid()));
            Path spec = h.settings.cdiDir().resolve(DRIVER + "_vfio_" + s.uid() + ".json");
            String specBefore = Files.readString(spec);

            h.restartDriver(node);
            h.api.client().resource(s.stored()).delete();
            Files.delete(spec);

            assertThat(h.kubelet.prepare(claim("vms", s.claim().name(), s.uid()))).isEqualTo(before);
            assertThat(Files.readString(spec)).isEqualTo(specBefore);
        }
    }

    @Test
    void unpreparingTheSpecialClaimRemovesItsCdiSpec() throws IOException {
        TargetState node = DraNodes.allDra("t4-numa");
        try (DraHarness h = new DraHarness(root).start(node)) {
            var s = ExtendedResourcePods.schedule(h.api.client(), node, pod("vm", asking("compute", 1)), Map.of(T4, List.of("0000:1a:00.0")));
            h.kubelet.prepare(claim("vms", s.claim().name(), s.uid()));

            assertThat(h.kubelet.unprepare(claim("vms", s.claim().name(), s.uid())).getClaimsOrThrow(s.uid()).getError()).isEmpty();
            try (var files = Files.list(h.settings.cdiDir())) {
                assertThat(files).isEmpty();
            }
        }
    }
}
