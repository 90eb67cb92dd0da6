package io.vfiodp.dra.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.model.AttributeValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointTest {

    private static final String DEVICE = """
            {"request": "gpu", "pool": "node-a", "device": "pci-0000-1a-00-0", "deviceId": "0000:1a:00.0", "vfioPaths": ["/dev/vfio/24"],
             "attributes": {}}""";

    @TempDir Path dir;

    static PreparedClaim claim(String uid, Optional<String> pod) {
        return claim(uid, pod, "pci-0000-1a-00-0");
    }

    static PreparedClaim claim(String uid, Optional<String> pod, String device) {
        return new PreparedClaim(uid, "vms", "gpu-" + uid, pod, List.of(new PreparedDevice("gpu/t4", "node-a", device,
                "0000:1a:00.0", List.of("/dev/vfio/vfio", "/dev/vfio/24"),
                new TreeMap<>(Map.of("kind", new AttributeValue.Text("passthrough"), "iommuGroup", new AttributeValue.Int(24),
                        "flag", new AttributeValue.Bool(true))))));
    }

    private ClaimFiles files() {
        return new ClaimFiles("d.io", dir, dir.resolve("cdi"));
    }

    private Checkpoint.Reading load(String driver) {
        return new Checkpoint(dir, driver).load(files());
    }

    private Checkpoint.Reading written(String text) throws IOException {
        Files.writeString(dir.resolve("checkpoint.json"), text);
        return load("d.io");
    }

    private String lost(String reason) {
        return "DRA checkpoint " + dir.resolve("checkpoint.json") + reason;
    }

    @Test
    void whatIsSavedIsLoaded() throws IOException {
        Checkpoint c = new Checkpoint(dir, "vfio-device-plugin.io");
        c.save(List.of(claim("u1", Optional.empty()), claim("u2", Optional.of("vgpu"), "pci-0000-1b-00-0")));
        assertThat(c.load(files())).isEqualTo(new Checkpoint.Loaded(new TreeMap<>(Map.of("u1", claim("u1", Optional.empty()),
                "u2", claim("u2", Optional.of("vgpu"), "pci-0000-1b-00-0")))));
        assertThat(Files.list(dir).map(p -> p.getFileName().toString()).toList()).containsExactly("checkpoint.json");
        assertThat(Files.getPosixFilePermissions(dir.resolve("checkpoint.json"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(dir.resolve("checkpoint.json"))).contains("\"kind\" : \"vfio-device-plugin/dra-checkpoint\"",
                "\"version\" : 2", "\"checksum\" : \"sha256:");
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
        c.save(List.of(extended("u1")));

        assertThat(c.load(files())).isEqualTo(new Checkpoint.Loaded(new TreeMap<>(Map.of("u1", extended("u1")))));
    }

    @Test
    void theVersionOneCheckpointOfEarlierReleasesIsReadInTheShapeTheyWrote() throws IOException {
        Checkpoint.Reading r = written("""
                {"version": 1, "driver": "d.io", "claims": [{"uid": "u1", "namespace": "vms", "name": "gpu", "devices": [%s]}]}
                """.formatted(DEVICE));

        PreparedClaim loaded = ((Checkpoint.Loaded) r).claims().get("u1");
        assertThat(loaded.forExtendedResources()).isFalse();
        assertThat(loaded.devices()).extracting(PreparedDevice::device).containsExactly("pci-0000-1a-00-0");
    }

    @Test
    void validJsonOfTheWrongShapeIsLostNeverNoClaim() throws IOException {
        String v1 = "{\"version\": 1, \"driver\": \"d.io\", ";
        assertThat(written(v1 + "\"claims\": {}}")).isEqualTo(new Checkpoint.Lost(lost(": claims: expected an array")));
        assertThat(written(v1 + "\"claims\": \"x\"}")).isEqualTo(new Checkpoint.Lost(lost(": claims: expected an array")));
        assertThat(written("{\"version\": 1, \"driver\": \"d.io\"}")).isEqualTo(new Checkpoint.Lost(lost(": field 'claims' is missing")));
        assertThat(written(v1 + "\"claims\": [{\"uid\": \"u1\", \"namespace\": \"vms\", \"name\": \"gpu\", \"devices\": {}}]}"))
                .isEqualTo(new Checkpoint.Lost(lost(": claims[0].devices: expected an array")));
        assertThat(written(v1 + "\"claims\": [{\"uid\": 7, \"namespace\": \"vms\", \"name\": \"gpu\", \"devices\": [" + DEVICE + "]}]}"))
                .isEqualTo(new Checkpoint.Lost(lost(": claims[0].uid: expected a string")));
        assertThat(written(v1 + "\"claims\": [], \"extra\": 1}")).isEqualTo(new Checkpoint.Lost(lost(": unknown field 'extra'")));
        assertThat(written("{\"version\": \"1\", \"driver\": \"d.io\", \"claims\": []}"))
                .isEqualTo(new Checkpoint.Lost(lost(": version: expected an integer")));
    }

    @Test
    void garbageTruncationAndOtherThingsThanAnObjectAreLost() throws IOException {
        new Checkpoint(dir, "d.io").save(List.of(claim("u1", Optional.empty())));
        String whole = Files.readString(dir.resolve("checkpoint.json"));
        for (String text : List.of(whole.substring(0, whole.length() / 2), "garbage", "null", "[]", "\u0000\u0001")) {
            assertThat(written(text)).as(text).isInstanceOf(Checkpoint.Lost.class);
        }
        assertThat(written(whole.replace("0000:1a:00.0", "0000:1b:00.0"))).isEqualTo(new Checkpoint.Lost(lost(" fails its checksum: it was"
                + " changed or damaged after it was written")));
        assertThat(written(whole.replace("\"version\" : 2", "\"version\" : 3"))).isEqualTo(new Checkpoint.Lost(lost(" is of version 3; this"
                + " agent reads version 2 (a newer agent wrote it?)")));
    }

    @Test
    void anEmptyFileIsSaidToBeEmpty() throws IOException {
        assertThat(written("")).isEqualTo(new Checkpoint.Lost(lost(" is empty")));
        assertThat(written("\n  \n")).isEqualTo(new Checkpoint.Lost(lost(" is empty")));
    }

    @Test
    void aDirectoryInItsPlaceIsLost() throws IOException {
        Files.createDirectory(dir.resolve("checkpoint.json"));
        assertThat(load("d.io")).isEqualTo(new Checkpoint.Lost(lost(" is a directory, not a file")));
    }

    @Test
    void oneDeviceRecordedForTwoClaimsIsLost() throws IOException {
        new Checkpoint(dir, "d.io").save(List.of(claim("u1", Optional.empty()), claim("u2", Optional.empty())));
        assertThat(load("d.io")).isEqualTo(new Checkpoint.Lost(lost(": content.claims[1]: device pci-0000-1a-00-0 is recorded for claims"
                + " u1 and u2")));
    }

    @Test
    void noFileIsNoClaimOnAFreshHost() {
        assertThat(load("d.io")).isEqualTo(new Checkpoint.Loaded(new TreeMap<>()));
    }

    @Test
    void noFileWhileAClaimsCdiSpecIsOnTheHostIsLost() throws IOException {
        Files.createDirectories(dir.resolve("cdi"));
        Files.writeString(dir.resolve("cdi/d.io_vfio_u1.json"), "{}");
        assertThat(load("d.io")).isEqualTo(new Checkpoint.Lost(lost(" is missing, but claims were prepared here (CDI spec "
                + dir.resolve("cdi/d.io_vfio_u1.json") + ")")));
    }

    @Test
    void aCheckpointSavedWhileClaimsWereStillLostIsLostWithWhatItHolds() throws IOException {
        new Checkpoint(dir, "d.io").save(List.of(claim("u1", Optional.empty())), Optional.of("DRA checkpoint x was empty"));
        assertThat(load("d.io")).isEqualTo(new Checkpoint.Lost("DRA checkpoint x was empty", new TreeMap<>(Map.of("u1",
                claim("u1", Optional.empty())))));
    }

    @Test
    void anotherDriversCheckpointIsLost() throws IOException {
        new Checkpoint(dir, "a.io").save(List.of());
        assertThat(load("b.io")).isEqualTo(new Checkpoint.Lost(lost(": written by driver a.io, this is b.io")));
    }

    @Test
    void aLinkPlantedAtTheOldTemporaryNameIsNeverFollowed() throws IOException {
        Path target = Files.writeString(dir.resolve("target"), "precious\n");
        Files.createSymbolicLink(dir.resolve(".checkpoint.json.tmp"), target);

        new Checkpoint(dir, "d.io").save(List.of(claim("u1", Optional.empty())));

        assertThat(Files.readString(target)).isEqualTo("precious\n");
        assertThat(load("d.io")).isInstanceOf(Checkpoint.Loaded.class);
    }
}
