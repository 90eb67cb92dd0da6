package io.vfiodp.vgpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.PciAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateFileTest {

    private static final OwnedDevices OWNED = OwnedDevices.NONE.withMdev("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27")
            .withVf(PciAddress.parse("0000:41:00.6"));

    @TempDir Path tmp;

    @Test
    void whatIsWrittenIsReadBackByANewInstance() throws IOException {
        new StateFile(tmp.resolve("a/b")).write(OWNED);

        assertThat(new StateFile(tmp.resolve("a/b")).read()).isEqualTo(OWNED);
        assertThat(Files.list(tmp.resolve("a/b")).map(p -> p.getFileName().toString()).toList()).containsExactly(StateFile.NAME);
    }

    @Test
    void noFileMeansNothingIsOwned() throws IOException {
        assertThat(new StateFile(tmp).read()).isEqualTo(new OwnedDevices(new TreeSet<>(), new TreeSet<>()));
    }

    @Test
    void theVersionOneFileOfEarlierReleasesIsRead() throws IOException {
        Files.writeString(tmp.resolve(StateFile.NAME), """
                {"version": 1, "mdevs": ["0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27"], "vfs": ["0000:41:00.6"]}
                """);

        assertThat(new StateFile(tmp).read()).isEqualTo(OWNED);
    }

    @Test
    void aCorruptFileIsAnErrorNamingItNeverNothingOwned() throws IOException {
        Path file = tmp.resolve(StateFile.NAME);
        Files.writeString(file, "{\"version\": 1, \"mdevs\": [], \"vfs\": [\"41:00.6\"]}");
        assertThatThrownBy(() -> new StateFile(tmp).read()).hasMessage("state file " + file + ": vfs: \"41:00.6\" is not a PCI address");
        Files.writeString(file, "{\"version\": 1, \"vfs\": []}");
        assertThatThrownBy(() -> new StateFile(tmp).read()).hasMessage("state file " + file + ": field 'mdevs' is missing");
        Files.writeString(file, "{\"version\": 1, \"mdevs\": {}, \"vfs\": []}");
        assertThatThrownBy(() -> new StateFile(tmp).read()).hasMessage("state file " + file + ": mdevs: expected an array");
        Files.writeString(file, "");
        assertThatThrownBy(() -> new StateFile(tmp).read()).hasMessage("state file " + file + " is empty");

        new StateFile(tmp).write(OWNED);
        String whole = Files.readString(file);
        Files.writeString(file, whole.replace("41:00.6", "41:00.7"));
        assertThatThrownBy(() -> new StateFile(tmp).read()).hasMessage("state file " + file + " fails its checksum: it was changed or"
                + " damaged after it was written");
        for (String damaged : List.of(whole.substring(0, whole.length() / 2), "null", "[]", "{}")) {
            Files.writeString(file, damaged);
            assertThatThrownBy(() -> new StateFile(tmp).read()).as(damaged).isInstanceOf(IOException.class).hasMessageStartingWith("state file " + file);
        }
    }
}
