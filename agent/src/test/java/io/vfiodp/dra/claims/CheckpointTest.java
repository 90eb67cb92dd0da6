package io.vfiodp.dra.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.dra.model.AttributeValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointTest {

    @TempDir Path dir;

    static PreparedClaim claim(String uid, Optional<String> pod) {
        return new PreparedClaim(uid, "vms", "gpu-" + uid, pod, List.of(new PreparedDevice("gpu/t4", "node-a", "pci-0000-1a-00-0",
                "0000:1a:00.0", List.of("/dev/vfio/vfio", "/dev/vfio/24"),
                new TreeMap<>(Map.of("kind", new AttributeValue.Text("passthrough"), "iommuGroup", new AttributeValue.Int(24),
                        "flag", new AttributeValue.Bool(true))))));
    }

    @Test
    void whatIsSavedIsLoaded() throws IOException {
        Checkpoint c = new Checkpoint(dir, "vfio-device-plugin.io");
        c.save(List.of(claim("u1", Optional.empty()), claim("u2", Optional.of("vgpu"))));
        assertThat(c.load()).isEqualTo(new TreeMap<>(Map.of("u1", claim("u1", Optional.empty()), "u2", claim("u2", Optional.of("vgpu")))));
        assertThat(Files.list(dir).map(p -> p.getFileName().toString()).toList()).containsExactly("checkpoint.json");
    }

    static PreparedClaim extended(String uid) {
        PreparedClaim c = claim(uid, Optional.empty());
        return new PreparedClaim(uid, "vms", "vm-extended-resources-x7k2p", Optional.empty(), c.devices(), List.of(new RequestEdits(
                "container-0-request-5", new LinkedHashMap<>(Map.of("PCI_RESOURCE_NVIDIA_COM_X", "0000:1a:00.0")),
                List.of("/dev/vfio/vfio", "/dev/vfio/24"))));
    }

    @Test
    void anExtendedResourceClaimKeepsWhatEachRequestsContainerGets() throws IOException {
        Checkpoint c = new Checkpoint(dir, "vfio-device-plugin.io");
        c.save(List.of(extended("u1"), claim("u2", Optional.empty())));

        assertThat(c.load()).isEqualTo(new TreeMap<>(Map.of("u1", extended("u1"), "u2", claim("u2", Optional.empty()))));
        assertThat(Files.readString(dir.resolve("checkpoint.json"))).contains("""
                      "extendedResources": [
                        {
                          "request": "container-0-request-5",
                          "env": {
                            "PCI_RESOURCE_NVIDIA_COM_X": "0000:1a:00.0"
                          },
                          "deviceNodes": [
                            "/dev/vfio/vfio",
                            "/dev/vfio/24"
                          ]
                        }
                      ]
                """);
    }

    @Test
    void aCheckpointWrittenBeforeExtendedResourcesReadsAsOrdinaryClaims() throws IOException {
        Files.writeString(dir.resolve("checkpoint.json"), """
                {"version": 1, "driver": "d.io", "claims": [{"uid": "u1", "namespace": "vms", "name": "gpu", "devices": [
                  {"request": "gpu", "pool": "node-a", "device": "pci-0000-1a-00-0", "deviceId": "0000:1a:00.0", "vfioPaths": ["/dev/vfio/24"],
                   "attributes": {}}]}]}
                """);

        PreparedClaim loaded = new Checkpoint(dir, "d.io").load().get("u1");

        assertThat(loaded.forExtendedResources()).isFalse();
        assertThat(loaded.devices()).extracting(PreparedDevice::device).containsExactly("pci-0000-1a-00-0");
    }

    @Test
    void noFileIsNoClaim() throws IOException {
        assertThat(new Checkpoint(dir, "d.io").load()).isEmpty();
    }

    @Test
    void aDamagedFileIsAnErrorNamingIt() throws IOException {
        Files.writeString(dir.resolve("checkpoint.json"), "{\"version\": 1, \"driver\": \"d.io\", \"claims\": [{\"uid\": 7}]}");
        assertThatThrownBy(() -> new Checkpoint(dir, "d.io").load()).isInstanceOf(IOException.class)
                .hasMessage("DRA checkpoint " + dir.resolve("checkpoint.json") + " is unreadable: field 'uid' is missing or not a string;"
                        + " move it away to start without it (its claims are then prepared again when the kubelet asks)");
        Files.writeString(dir.resolve("checkpoint.json"), "{\"version\": 1, \"dri");
        assertThatThrownBy(() -> new Checkpoint(dir, "d.io").load()).hasMessageStartingWith("DRA checkpoint " + dir.resolve("checkpoint.json")
                + " is unreadable: ");
    }

    @Test
    void anotherDriversCheckpointIsRefused() throws IOException {
        new Checkpoint(dir, "a.io").save(List.of());
        assertThatThrownBy(() -> new Checkpoint(dir, "b.io").load()).hasMessageContaining("written by driver a.io, this is b.io");
    }
}
