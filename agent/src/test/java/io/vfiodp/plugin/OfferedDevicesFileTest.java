package io.vfiodp.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.node.OfferRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The record of what the device plugins offered, in the device-plugin directory across restarts. */
class OfferedDevicesFileTest {

    @TempDir Path dir;

    @Test
    void whatIsWrittenIsReadBackOneIdALineSorted() throws IOException {
        OfferedDevicesFile file = new OfferedDevicesFile(dir);
        file.write(new OfferRecord.Known(Set.of("0000:b1:00.0", "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", "0000:1a:00.0")));

        assertThat(file.read()).isEqualTo(new OfferRecord.Known(Set.of("0000:b1:00.0", "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27", "0000:1a:00.0")));
        assertThat(Files.readAllLines(dir.resolve(OfferedDevicesFile.FILE))).endsWith("0000:1a:00.0", "0000:b1:00.0",
                "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27");
        assertThat(dir.resolve("." + OfferedDevicesFile.FILE + ".tmp")).doesNotExist();
    }

    @Test
    void noFileOnANodeWhoseKubeletNeverRanDevicePluginsIsNoDevice() throws IOException {
        assertThat(new OfferedDevicesFile(dir).read()).isEqualTo(OfferRecord.Known.NONE);
    }

    @Test
    void noFileBesideTheKubeletsCheckpointIsARecordLost() throws IOException {
        Files.writeString(dir.resolve("kubelet_internal_checkpoint"), "{}");

        assertThat(new OfferedDevicesFile(dir).read()).isEqualTo(new OfferRecord.Lost());
    }

    @Test
    void aFileThatCannotBeWrittenIsNamed() throws IOException {
        Path notADir = Files.writeString(dir.resolve("plain-file"), "");

        assertThatThrownBy(() -> new OfferedDevicesFile(notADir).write(OfferRecord.Known.NONE)).isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot write " + notADir.resolve(OfferedDevicesFile.FILE) + ": ");
    }
}
