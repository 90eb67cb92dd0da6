package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.checkout.Checkout;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's first command after {@code ./mvnw package}: {@code bin/vfio-device-plugin demo} shows the
 * device-plugin path and then the DRA path, the latter with the mock API server from
 * {@code demo/target/demo-lib}, and nothing on stderr.
 */
class LauncherDemoIT {

    @Test
    void theLaunchersDemoShowsBothPaths(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        Process p = new ProcessBuilder(Checkout.path("bin/vfio-device-plugin").toString(), "demo").redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(new File("/dev/null")).start();

        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("demo ended").isTrue();
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(text + Files.readString(err)).isZero();
        assertThat(text).contains("    env     PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:b1:00.0\n",
                "== Shut down: the streams ended without an empty device list, plugin sockets removed\n",
                "== ResourceSlice demo-node-vfio-device-plugin.io-0 ",
                "== ResourceClaim vms/vm-gpu, allocated as the scheduler leaves it: request gpu -> pci-0000-b1-00-0 in pool demo-node",
                "    from the metadata's resource.kubernetes.io/pciBusID 0000:b1:00.0, where the device-plugin path has",
                "== NodeUnprepareResources (the VM's pod is gone): ok; CDI specs left in ",
                "== Shut down: serve stopped, its registration and DRA sockets removed\n");
        assertThat(Files.readString(err)).isEmpty();
    }
}
