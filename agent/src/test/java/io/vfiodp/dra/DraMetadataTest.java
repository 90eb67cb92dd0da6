package io.vfiodp.dra;

import static io.vfiodp.testkit.dra.DraKubeletSimulator.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.testkit.dra.CdiRuntime;
import io.vfiodp.testkit.dra.DraKubeletSimulator;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device metadata files (KEP-5304) byte for byte as Kubernetes 1.36's kubeletplugin helper
 * writes them, and KubeVirt's virt-launcher finding each kind of device through them once the
 * container runtime has applied the CDI devices the kubelet got.
 */
class DraMetadataTest {

    @TempDir Path root;
    @TempDir Path container;

    private static ResourceClaim prepared(DraHarness h, ResourceClaim claim) {
        ResourceClaim c = Claims.create(h.api.client(), claim);
        NodePrepareResourceResponse r = h.kubelet.prepare(claim(c.getMetadata().getNamespace(), c.getMetadata().getName(), c.getMetadata().getUid()))
                .getClaimsOrThrow(c.getMetadata().getUid());
        assertThat(r.getError()).isEmpty();
        return c;
    }

    /** What the runtime does with the claim's CDI devices: the mounts land in {@link #container}. */
    private void runContainer(DraHarness h, ResourceClaim c) throws IOException {
        NodePrepareResourceResponse r = h.kubelet.prepare(claim(c.getMetadata().getNamespace(), c.getMetadata().getName(), c.getMetadata().getUid()))
                .getClaimsOrThrow(c.getMetadata().getUid());
        List<String> ids = new ArrayList<>();
        r.getDevicesList().forEach(d -> ids.addAll(d.getCdiDeviceIdsList()));
        CdiRuntime.mountInto(container, new CdiRuntime(h.settings.cdiDir()).edits(ids));
    }

    @Test
    void theMetadataFileAndItsCdiSpecAreWrittenAsTheKubeletPluginHelperWritesThem() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = prepared(h, Claims.allocated("gpu-claim", "u", Claims.ours("pci-0000-1a-00-0")));
            String uid = c.getMetadata().getUid();
            Path metadata = h.settings.pluginDir().resolve("dra-device-metadata/vms_gpu-claim_" + uid + "/gpu/metadata.json");
            assertThat(Files.readString(metadata)).isEqualTo("""
                    {
                      "kind": "DeviceMetadata",
                      "apiVersion": "metadata.resource.k8s.io/v1alpha1",
                      "metadata": {
                        "name": "gpu-claim",
                        "namespace": "vms",
                        "uid": "%s",
                        "generation": 1
                      },
                      "requests": [
                        {
                          "name": "gpu",
                          "devices": [
                            {
                              "driver": "vfio-device-plugin.io",
                              "pool": "node-a",
                              "name": "pci-0000-1a-00-0",
                              "attributes": {
                                "deviceID": {
                                  "string": "0x1eb8"
                                },
                                "iommuGroup": {
                                  "int": 24
                                },
                                "kind": {
                                  "string": "passthrough"
                                },
                                "productName": {
                                  "string": "TU104GL [Tesla T4]"
                                },
                                "resource.kubernetes.io/numaNode": {
                                  "int": 0
                                },
                                "resource.kubernetes.io/pciBusID": {
                                  "string": "0000:1a:00.0"
                                },
                                "resource.kubernetes.io/pcieRoot": {
                                  "string": "pci0000:17"
                                },
                                "resourceName": {
                                  "string": "nvidia.com/TU104GL_TESLA_T4"
                                },
                                "vendorID": {
                                  "string": "0x10de"
                                }
                              }
                            }
                          ]
                        }
                      ]
                    }
                    """.formatted(uid));
            assertThat(Files.readString(h.settings.cdiDir().resolve("vfio-device-plugin.io_metadata_" + uid + "_gpu.json"))).isEqualTo("""
                    {
                      "cdiVersion": "0.5.0",
                      "kind": "vfio-device-plugin.io/metadata",
                      "devices": [
                        {
                          "name": "%s_gpu",
                          "containerEdits": {
                            "mounts": [
                              {
                                "hostPath": "%s",
                                "containerPath": "/var/run/kubernetes.io/dra-device-attributes/resourceclaims/gpu-claim/gpu/vfio-device-plugin.io-metadata.json",
                                "options": [
                                  "ro",
                                  "bind"
                                ]
                              }
                            ]
                          }
                        }
                      ]
                    }""".formatted(uid, metadata));
        }
    }

    @Test
    void kubeVirtFindsThePassthroughGpuOfANamedClaim() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            runContainer(h, prepared(h, Claims.allocated("gpu-claim", "u", Claims.ours("pci-0000-1a-00-0"))));
            assertThat(KubeVirtDra.gpu(container, List.of(KubeVirtDra.VmiClaim.named("gpus", "gpu-claim")), "gpus", "gpu"))
                    .isEqualTo(new KubeVirtDra.Pci("0x0000", "0x1a", "0x00", "0x0"));
        }
    }

    @Test
    void kubeVirtFindsTheMdevOfAClaimMadeFromATemplate() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-vgpu"))) {
            String uuid = "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27";
            ResourceClaim c = prepared(h, Claims.fromTemplate("virt-launcher-vm1-x7k2p-vgpu-4f8zq", "u", "vgpu", Claims.ours("mdev-" + uuid)));
            runContainer(h, c);
            assertThat(container.resolve(KubeVirtDra.BASE).resolve("resourceclaimtemplates/vgpu/gpu/vfio-device-plugin.io-metadata.json")).exists();
            assertThat(KubeVirtDra.gpu(container, List.of(KubeVirtDra.VmiClaim.template("vgpu", "t4-1q")), "vgpu", "gpu"))
                    .isEqualTo(new KubeVirtDra.Mdev(uuid));
        }
    }

    @Test
    void kubeVirtFindsTheSriovVgpuVirtualFunctionAsAPciDevice() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("l40s-sriov"))) {
            runContainer(h, prepared(h, Claims.allocated("l40s", "u", Claims.ours("pci-0000-41-00-5"))));
            assertThat(KubeVirtDra.gpu(container, List.of(KubeVirtDra.VmiClaim.named("vgpu", "l40s")), "vgpu", "gpu"))
                    .isEqualTo(new KubeVirtDra.Pci("0x0000", "0x41", "0x00", "0x5"));
        }
    }

    @Test
    void twoRequestsOfOneClaimGetOneMetadataFileEach() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            runContainer(h, prepared(h, Claims.allocated("two", "u",
                    Claims.result("first", DraNodes.DRIVER, DraNodes.NODE, "pci-0000-1a-00-0"),
                    Claims.result("second", DraNodes.DRIVER, DraNodes.NODE, "pci-0000-1b-00-0"))));
            List<KubeVirtDra.VmiClaim> claims = List.of(KubeVirtDra.VmiClaim.named("gpus", "two"));
            assertThat(KubeVirtDra.gpu(container, claims, "gpus", "first")).isEqualTo(new KubeVirtDra.Pci("0x0000", "0x1a", "0x00", "0x0"));
            assertThat(KubeVirtDra.gpu(container, claims, "gpus", "second")).isEqualTo(new KubeVirtDra.Pci("0x0000", "0x1b", "0x00", "0x0"));
        }
    }

    @Test
    void aSubrequestIsFiledUnderItsRequestAndNamedInFullInside() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = prepared(h, Claims.allocated("sub", "u", Claims.result("gpu/t4", DraNodes.DRIVER, DraNodes.NODE, "pci-0000-1a-00-0")));
            Path metadata = h.settings.pluginDir().resolve("dra-device-metadata/vms_sub_" + c.getMetadata().getUid() + "/gpu/metadata.json");
            assertThat(Files.readString(metadata)).contains("\"name\": \"gpu/t4\"");
            NodePrepareResourceResponse r = h.kubelet.prepare(claim("vms", "sub", c.getMetadata().getUid())).getClaimsOrThrow(c.getMetadata().getUid());
            assertThat(r.getDevices(0).getRequestNamesList()).containsExactly("gpu");
        }
    }
}
