package io.vfiodp.vgpu;

import io.vfiodp.host.PciAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StateFileTest {

    @TempDir Path tmp;

    @Test
    void whatIsWrittenIsReadBackByANewInstance() throws IOException {
        OwnedDevices owned = OwnedDevices.NONE.withMdev("0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27").withVf(PciAddress.parse("0000:41:00.6"));
        new StateFile(tmp.resolve("a/b")).write(owned);

        assertThat(new StateFile(tmp.resolve("a/b")).read()).isEqualTo(owned);
        assertThat(Files.exists(tmp.resolve("a/b/" + StateFile.NAME + ".tmp"))).isFalse();
    }

    @Test
    void noFileMeansNothingIsOwned() throws IOException {
        assertThat(new StateFile(tmp).read()).isEqualTo(new OwnedDevices(new TreeSet<>(), new TreeSet<>()));
    }

    @Test
    void aCorruptFileIsAnErrorNamingIt() throws IOException {
        Files.writeString(tmp.resolve(StateFile.NAME), "{\"version\": 1, \"vfs\": [\"41:00.6\"]}");

        assertThatThrownBy(() -> new StateFile(tmp).read())
                .hasMessage("state file " + tmp.resolve(StateFile.NAME) + ": \"vfs\" entry \"41:00.6\" is not a PCI address");
    }
}
