package io.vfiodp.handover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.plugin.KubeletStarts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The record of what the device plugins offered, in a directory of its own in the device-plugin directory, across restarts. */
class HandoverRecordFileTest {

    private static final String LEGACY_HEADER = "# devices the device plugins of vfio-device-plugin offered on this node that no pod has"
            + " been shown not to hold since (PodResources); one ID a line\n";

    @TempDir Path dir;

    @Test
    void whatIsWrittenIsLoadedBackFromADirectoryOfItsOwn() throws IOException {
        HandoverRecordFile file = new HandoverRecordFile(dir);
        file.write(new HandoverRecord.Known(Set.of("0000:b1:00.0", "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", "0000:1a:00.0")));

        assertThat(file.load()).isEqualTo(new HandoverRecord.Known(Set.of("0000:b1:00.0", "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", "0000:1a:00.0")));
        assertThat(file.file()).isEqualTo(dir.resolve("vfio-device-plugin/offered-devices.json"));
        assertThat(Files.list(file.file().getParent()).map(p -> p.getFileName().toString()).toList()).containsExactly("offered-devices.json");
    }

    @Test
    void theRecordSurvivesAKubeletRestart() throws IOException {
        Files.writeString(dir.resolve("kubelet_internal_checkpoint"), "{}");
        HandoverRecordFile file = new HandoverRecordFile(dir);
        file.write(new HandoverRecord.Known(Set.of("0000:3b:00.0")));

        KubeletStarts.upTo132(dir);

        assertThat(file.load()).isEqualTo(new HandoverRecord.Known(Set.of("0000:3b:00.0")));
    }

    @Test
    void aRecordAnEarlierVersionLeftBesideTheSocketsIsMovedOver() throws IOException {
        Files.writeString(dir.resolve("kubelet_internal_checkpoint"), "{}");
        Files.writeString(dir.resolve("vfio-dp-offered-devices"), LEGACY_HEADER + "0000:1a:00.0\n0000:3b:00.0\n");
        HandoverRecordFile file = new HandoverRecordFile(dir);

        assertThat(file.load()).isEqualTo(new HandoverRecord.Known(Set.of("0000:1a:00.0", "0000:3b:00.0")));
        assertThat(dir.resolve("vfio-dp-offered-devices")).doesNotExist();
        KubeletStarts.upTo132(dir);
        assertThat(file.load()).isEqualTo(new HandoverRecord.Known(Set.of("0000:1a:00.0", "0000:3b:00.0")));
    }

    @Test
    void aRecordInBothPlacesCountsWhatEitherNames() throws IOException {
        HandoverRecordFile file = new HandoverRecordFile(dir);
        file.write(new HandoverRecord.Known(Set.of("0000:1a:00.0")));
        // an earlier version ran after this one (a rollback, then the upgrade again)
        Files.writeString(dir.resolve("vfio-dp-offered-devices"), LEGACY_HEADER + "0000:3b:00.0\n");

        assertThat(file.load()).isEqualTo(new HandoverRecord.Known(Set.of("0000:1a:00.0", "0000:3b:00.0")));
    }

    @Test
    void anEarlierVersionsRecordOverwrittenWithGarbageIsLostNotEmpty() throws IOException {
        Files.writeString(dir.resolve("vfio-dp-offered-devices"), "x7$!\nnot a device\n\u0000\u0001\n");

        assertThat(new HandoverRecordFile(dir).load()).isInstanceOf(HandoverRecord.Lost.class);
        // kept for a look, until a record proven by PodResources replaces it
        assertThat(dir.resolve("vfio-dp-offered-devices")).exists();
    }

    @Test
    void aRecordThatFailsItsChecksIsLostNamingTheFileAndWhy() throws IOException {
        HandoverRecordFile file = new HandoverRecordFile(dir);
        file.write(new HandoverRecord.Known(Set.of("0000:3b:00.0")));
        String written = Files.readString(file.file());

        Files.writeString(file.file(), "garbage\ngarbage\ngarbage\n");
        assertThat(file.load()).isEqualTo(new HandoverRecord.Lost(file.file() + " is not valid JSON: Unrecognized token 'garbage': was"
                + " expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"));
        Files.writeString(file.file(), "");
        assertThat(file.load()).isEqualTo(new HandoverRecord.Lost(file.file() + " is empty"));
        Files.writeString(file.file(), written.replace("0000:3b:00.0", "0000:3c:00.0"));
        assertThat(file.load()).isEqualTo(new HandoverRecord.Lost(file.file() + " fails its checksum: it was changed or damaged after it was"
                + " written"));
        Files.writeString(file.file(), written.substring(0, written.length() / 2));
        assertThat(file.load()).isInstanceOf(HandoverRecord.Lost.class);
        Files.delete(file.file());
        Files.createDirectory(file.file());
        assertThat(file.load()).isEqualTo(new HandoverRecord.Lost(file.file() + " is a directory, not a file"));
    }

    @Test
    void noFileOnANodeWhoseKubeletNeverRanDevicePluginsIsNoDevice() {
        assertThat(new HandoverRecordFile(dir).load()).isEqualTo(HandoverRecord.Known.NONE);
    }

    @Test
    void noFileBesideTheKubeletsCheckpointIsARecordLost() throws IOException {
        Files.writeString(dir.resolve("kubelet_internal_checkpoint"), "{}");

        assertThat(new HandoverRecordFile(dir).load()).isInstanceOf(HandoverRecord.Lost.class);
    }

    @Test
    void noFileInTheRecordsOwnDirectoryIsARecordLost() throws IOException {
        Files.createDirectory(dir.resolve("vfio-device-plugin"));

        assertThat(new HandoverRecordFile(dir).load()).isEqualTo(new HandoverRecord.Lost(dir.resolve("vfio-device-plugin/offered-devices.json")
                + " is missing, though its directory is there"));
    }

    @Test
    void aLinkPlantedAtTheTemporaryNameIsNeverFollowed() throws IOException {
        Path target = Files.writeString(dir.resolve("target"), "precious\n");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(dir.resolve(".vfio-dp-offered-devices.tmp"), target);
        Files.createDirectory(dir.resolve("vfio-device-plugin"));
        Files.createSymbolicLink(dir.resolve("vfio-device-plugin/.offered-devices.json.tmp"), target);

        new HandoverRecordFile(dir).write(new HandoverRecord.Known(Set.of("0000:3b:00.0")));

        assertThat(Files.readString(target)).isEqualTo("precious\n");
        assertThat(Files.getPosixFilePermissions(target)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(new HandoverRecordFile(dir).load()).isEqualTo(new HandoverRecord.Known(Set.of("0000:3b:00.0")));
    }

    @Test
    void aFileThatCannotBeWrittenIsNamed() throws IOException {
        Path notADir = Files.writeString(dir.resolve("plain-file"), "");

        assertThatThrownBy(() -> new HandoverRecordFile(notADir).write(HandoverRecord.Known.NONE)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot write " + notADir.resolve("vfio-device-plugin/offered-devices.json") + ": ");
        assertThat(List.of(dir.toFile().list())).containsExactly("plain-file");
    }
}
