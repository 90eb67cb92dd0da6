package io.vfiodp.dra;

import static io.vfiodp.testkit.dra.DraKubeletSimulator.claim;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.vfiodp.dra.claims.Checkpoint;
import io.vfiodp.proto.dra.v1.Claim;
import io.vfiodp.proto.dra.v1.NodePrepareResourceResponse;
import io.vfiodp.testkit.dra.CdiRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files a prepared claim owns on the host: keyed by its UID, so that a claim made again under
 * the same name never shares one with the old; written without following a link planted at a
 * temporary name; restored by a repeated prepare; and those an earlier release wrote still
 * removed when the claim is unprepared.
 */
class DraClaimFilesTest {

    private static final String A = "pci-0000-1a-00-0";
    private static final String B = "pci-0000-1b-00-0";

    @TempDir Path root;

    private static Claim ref(ResourceClaim c) {
        return claim(c.getMetadata().getNamespace(), c.getMetadata().getName(), c.getMetadata().getUid());
    }

    private static NodePrepareResourceResponse prepare(DraHarness h, ResourceClaim c) {
        return h.kubelet.prepare(ref(c)).getClaimsOrThrow(c.getMetadata().getUid());
    }

    /** The host file the claim's metadata CDI device mounts, as the runtime would apply it. */
    private static Path mountedMetadata(DraHarness h, NodePrepareResourceResponse r) throws IOException {
        List<String> ids = new ArrayList<>();
        r.getDevicesList().forEach(d -> ids.addAll(d.getCdiDeviceIdsList()));
        List<CdiRuntime.Mount> mounts = new CdiRuntime(h.settings.cdiDir()).edits(ids).mounts();
        assertThat(mounts).hasSize(1);
        return Path.of(mounts.getFirst().hostPath());
    }

    @Test
    void aClaimMadeAgainUnderTheSameNameSharesNoFileWithTheOldOne() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim first = Claims.create(h.api.client(), Claims.allocated("vm-same", "uid-1", Claims.ours(A)));
            Path firstMetadata = mountedMetadata(h, prepare(h, first));
            h.api.client().resource(first).delete();
            ResourceClaim second = Claims.create(h.api.client(), Claims.allocated("vm-same", "uid-2", Claims.ours(B)));
            NodePrepareResourceResponse r = prepare(h, second);
            assertThat(r.getError()).isEmpty();
            Path secondMetadata = mountedMetadata(h, r);

            assertThat(secondMetadata).isNotEqualTo(firstMetadata);
            String uid1 = first.getMetadata().getUid();
            String uid2 = second.getMetadata().getUid();
            assertThat(uid2).isNotEqualTo(uid1);
            assertThat(Files.readString(firstMetadata)).contains("\"uid\": \"" + uid1 + "\"", "0000:1a:00.0").doesNotContain("0000:1b:00.0");
            assertThat(Files.readString(secondMetadata)).contains("\"uid\": \"" + uid2 + "\"", "0000:1b:00.0");

            assertThat(h.kubelet.unprepare(ref(first)).getClaimsOrThrow(uid1).getError()).isEmpty();
            assertThat(firstMetadata).doesNotExist();
            assertThat(Files.readString(secondMetadata)).contains("\"uid\": \"" + uid2 + "\"", "0000:1b:00.0");
            assertThat(mountedMetadata(h, prepare(h, second))).isEqualTo(secondMetadata);
        }
    }

    @Test
    void aLinkPlantedAtACdiSpecsTemporaryNameIsNeverFollowed() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu", "uid-1", Claims.ours(A)));
            Path target = Files.writeString(root.resolve("target"), "precious\n");
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
            Files.createDirectories(h.settings.cdiDir());
            // the claim's UID is visible in the API: the old temporary names could be guessed
            String uid = c.getMetadata().getUid();
            Files.createSymbolicLink(h.settings.cdiDir().resolve(".vfio-device-plugin.io_vfio_" + uid + ".json.tmp"), target);
            Files.createSymbolicLink(h.settings.cdiDir().resolve(".vfio-device-plugin.io_metadata_" + uid + "_gpu.json.tmp"), target);

            assertThat(prepare(h, c).getError()).isEmpty();

            assertThat(Files.readString(target)).isEqualTo("precious\n");
            assertThat(Files.getPosixFilePermissions(target)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.readString(h.settings.cdiDir().resolve("vfio-device-plugin.io_vfio_" + uid + ".json"))).contains("/dev/vfio/24");
        }
    }

    @Test
    void aMetadataFileReplacedByADirectoryIsRestoredByAPrepareAgain() throws IOException {
        try (DraHarness h = new DraHarness(root).start(DraNodes.allDra("t4-numa"))) {
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("gpu", "uid-1", Claims.ours(A)));
            Path metadata = mountedMetadata(h, prepare(h, c));
            String content = Files.readString(metadata);
            Files.delete(metadata);
            Files.createDirectories(metadata.resolve("left-by-a-runtime"));

            assertThat(prepare(h, c).getError()).isEmpty();

            assertThat(metadata).isRegularFile();
            assertThat(Files.readString(metadata)).isEqualTo(content);
        }
    }

    @Test
    void claimsAnEarlierReleasePreparedKeepWorkingAndTheirOldFilesGoWhenUnprepared() throws IOException {
        DraHarness h = new DraHarness(root);
        try (h) {
            // as a release before UID-keyed paths left it: a version-1 checkpoint and the metadata under <ns>_<claim>
            ResourceClaim c = Claims.create(h.api.client(), Claims.allocated("old", "uid-1", Claims.ours(A)));
            Path legacy = h.settings.pluginDir().resolve("dra-device-metadata/vms_old/gpu/metadata.json");
            Files.createDirectories(legacy.getParent());
            String uid = c.getMetadata().getUid();
            Files.writeString(legacy, "{\"kind\": \"DeviceMetadata\", \"metadata\": {\"name\": \"old\", \"namespace\": \"vms\", \"uid\": \"" + uid + "\"}}\n");
            Path othersLegacy = h.settings.pluginDir().resolve("dra-device-metadata/vms_other/gpu/metadata.json");
            Files.createDirectories(othersLegacy.getParent());
            Files.writeString(othersLegacy, "{\"kind\": \"DeviceMetadata\", \"metadata\": {\"name\": \"other\", \"namespace\": \"vms\", \"uid\": \"uid-9\"}}\n");
            Files.writeString(h.settings.pluginDir().resolve(Checkpoint.FILE), """
                    {"version": 1, "driver": "vfio-device-plugin.io", "claims": [{"uid": "%s", "namespace": "vms", "name": "old",
                      "devices": [{"request": "gpu", "pool": "node-a", "device": "pci-0000-1a-00-0", "deviceId": "0000:1a:00.0",
                                   "vfioPaths": ["/dev/vfio/vfio", "/dev/vfio/24"], "attributes": {}}]}]}
                    """.formatted(uid));
            h.start(DraNodes.allDra("t4-numa"));

            // prepared already: answered from the book, the device held against another claim
            NodePrepareResourceResponse again = prepare(h, c);
            assertThat(again.getError()).isEmpty();
            assertThat(again.getDevices(0).getCdiDeviceIdsList()).contains("vfio-device-plugin.io/vfio=" + uid + "-" + A);
            ResourceClaim rival = Claims.create(h.api.client(), Claims.allocated("rival", "uid-2", Claims.ours(A)));
            assertThat(prepare(h, rival).getError()).contains("is already prepared for claim vms/old (UID " + uid + ")");

            assertThat(h.kubelet.unprepare(ref(c)).getClaimsOrThrow(uid).getError()).isEmpty();
            assertThat(legacy.getParent().getParent()).doesNotExist();
            assertThat(othersLegacy).exists();
            assertThat(new Checkpoint(h.settings.pluginDir(), DraNodes.DRIVER).load(new io.vfiodp.dra.claims.ClaimFiles(DraNodes.DRIVER,
                    h.settings.pluginDir(), h.settings.cdiDir()))).isInstanceOf(Checkpoint.Loaded.class);
        }
    }
}
