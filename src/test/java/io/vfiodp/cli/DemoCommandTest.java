package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoCommandTest {

    private static int exitCode;
    private static String output;

    @BeforeAll
    static void runDemoOnce() {
        StringWriter out = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out));
        exitCode = cl.execute("demo");
        output = out.toString();
    }

    @Test
    void demoExitsZero() {
        assertThat(exitCode).isZero();
    }

    @Test
    void demoPrintsTheInventoryOfTheBundledNode() {
        assertThat(output).contains("== Inventory", "nvidia.com/TU104GL_TESLA_T4  PCI   4        3",
                "unhealthy: IOMMU group 65: /dev/vfio/65 missing");
    }

    @Test
    void demoPrintsTheRegistrationAndTheDevicesTheKubeletSees() {
        assertThat(output).contains(
                "  nvidia.com/TU104GL_TESLA_T4  endpoint vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock  preferred-allocation true",
                "  nvidia.com/TU104GL_TESLA_T4  ListAndWatch: 0000:1a:00.0 (Healthy, NUMA 0) 0000:1b:00.0 (Healthy, NUMA 0) "
                        + "0000:b1:00.0 (Healthy, NUMA 1) 0000:b2:00.0 (Unhealthy, NUMA 1)");
    }

    @Test
    void demoPrintsOneAllocationWithEnvVarAndDeviceSpecs() {
        assertThat(output).contains("""
                  nvidia.com/TU104GL_TESLA_T4: preferred 0000:b1:00.0
                    env     PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:b1:00.0
                    device  /dev/vfio/vfio (mrw)
                    device  /dev/vfio/64 (mrw)
                """);
    }

    @Test
    void demoShutsDownCleanlyAndRemovesItsTemporaryNode() {
        Matcher m = Pattern.compile("rebuilt in (\\S+)/node ").matcher(output);

        assertThat(output).contains("== Shut down: final empty device lists sent, plugin sockets removed\n");
        assertThat(m.find()).isTrue();
        assertThat(Files.exists(Path.of(m.group(1)))).isFalse();
    }
}
