package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.checkout.Checkout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;
import io.vfiodp.libvirt.DeviceRequest;
import io.vfiodp.libvirt.VmiDevices;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** deploy/examples/vmi-with-hook-sidecar.yaml is valid YAML that KubeVirt and our CLI both understand. */
class HookSidecarExampleTest {

    static final Path EXAMPLE = Checkout.path("deploy/examples/vmi-with-hook-sidecar.yaml");

    static JsonNode example() throws IOException {
        return new YAMLMapper().readTree(Files.readString(EXAMPLE));
    }

    static JsonNode sidecars() throws IOException {
        return new ObjectMapper().readTree(example().path("metadata").path("annotations").path("hooks.kubevirt.io/hookSidecars").asText());
    }

    @Test
    void itIsAVirtualMachineInstanceWithOneHookSidecarOfOurImage() throws IOException {
        JsonNode vmi = example();
        assertThat(vmi.path("apiVersion").asText()).isEqualTo("kubevirt.io/v1");
        assertThat(vmi.path("kind").asText()).isEqualTo("VirtualMachineInstance");
        assertThat(sidecars()).hasSize(1);
        assertThat(sidecars().get(0).path("image").asText()).startsWith("ghcr.io/vfio-device-plugin/vfio-device-plugin:");
    }

    @Test
    void theSidecarArgsAreAcceptedByOurCommandLine() throws IOException {
        List<String> args = new ArrayList<>();
        sidecars().get(0).path("args").forEach(a -> args.add(a.asText()));
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs(args.toArray(String[]::new));
        CommandLine.ParseResult sub = parsed.subcommand();
        assertThat(sub.commandSpec().name()).isEqualTo("hook-sidecar");
        assertThat(sub.matchedOptionValue("--socket-dir", Path.of("unset"))).isEqualTo(Path.of("/var/run/kubevirt-hooks"));
        assertThat(sub.hasMatchedOption("--companions")).isTrue();
    }

    @Test
    void theHelperReadsItsGpuAndCompanionsAnnotation() throws IOException {
        VmiDevices devices = VmiDevices.parse(Files.readString(EXAMPLE));
        assertThat(devices.requests()).extracting(DeviceRequest::alias, DeviceRequest::resourceName)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("ua-gpu-gpu0", "nvidia.com/TU104GL_TESLA_T4"));
        assertThat(devices.companions()).isEqualTo(Optional.of(true));
    }
}
