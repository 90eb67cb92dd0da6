package io.vfiodp.testkit.dra;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CDI edits applied as a container runtime applies them: a variable set twice keeps its last value, and the test sees it. */
class CdiRuntimeTest {

    @TempDir Path cdi;

    private void spec(String file, String json) throws IOException {
        Files.writeString(cdi.resolve(file), json);
    }

    private void twoDevicesSettingOneVariable() throws IOException {
        spec("drv.json", """
                {"cdiVersion": "0.5.0", "kind": "drv.example.com/gpu", "devices": [
                  {"name": "a", "containerEdits": {"env": ["GPUS=0000:01:00.0", "ONLY_A=1"], "deviceNodes": [{"path": "/dev/vfio/vfio"}, {"path": "/dev/vfio/1"}]}},
                  {"name": "b", "containerEdits": {"env": ["GPUS=0000:02:00.0"], "deviceNodes": [{"path": "/dev/vfio/vfio"}, {"path": "/dev/vfio/2"}]}}]}
                """);
    }

    @Test
    void aVariableSetByTwoDevicesKeepsTheLastValueAndTheOverwriteShows() throws IOException {
        twoDevicesSettingOneVariable();

        CdiRuntime.Edits edits = new CdiRuntime(cdi).edits(List.of("drv.example.com/gpu=a", "drv.example.com/gpu=b"));

        assertThat(edits.env()).containsExactly(Map.entry("GPUS", "0000:02:00.0"), Map.entry("ONLY_A", "1"));
        assertThat(edits.overwritten()).containsExactly("GPUS: 0000:01:00.0 -> 0000:02:00.0");
    }

    @Test
    void aDeviceNodeOfThePathGivenTwiceIsThereOnce() throws IOException {
        twoDevicesSettingOneVariable();

        CdiRuntime.Edits edits = new CdiRuntime(cdi).edits(List.of("drv.example.com/gpu=a", "drv.example.com/gpu=b"));

        assertThat(edits.hostPaths()).containsExactly("/dev/vfio/vfio", "/dev/vfio/1", "/dev/vfio/2");
    }

    @Test
    void anUnknownDeviceFailsTheContainer() throws IOException {
        twoDevicesSettingOneVariable();

        assertThatThrownBy(() -> new CdiRuntime(cdi).edits(List.of("drv.example.com/gpu=c"))).hasMessage("unresolvable CDI device drv.example.com/gpu=c");
    }

    @Test
    void aSpecOfAnUnknownVersionIsRefused() throws IOException {
        spec("old.json", "{\"cdiVersion\": \"0.1.0\", \"kind\": \"drv.example.com/gpu\", \"devices\": [{\"name\": \"a\", \"containerEdits\": {}}]}");

        assertThatThrownBy(() -> new CdiRuntime(cdi)).hasMessage(cdi.resolve("old.json") + ": cdiVersion '0.1.0' is not one the CDI library reads");
    }

    @Test
    void aDotFileIsNoSpec() throws IOException {
        spec(".half.json", "{");

        assertThat(new CdiRuntime(cdi).edits(List.of()).env()).isEmpty();
    }
}
