package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.plugin.ProcessLevels;
import io.vfiodp.plugin.ServeJvm;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DemoCommandTest {

    private static int exitCode;
    private static String output;
    private static String errors;

    /** The process' threads, file descriptors and watches between the two runs. */
    private static ProcessLevels afterFirstRun;
    /** The second run, with serve's JVM options: its exit status, stderr and the plugin process' JVM log. */
    private static int optionsExitCode;
    private static String optionsErrors;
    private static Path optionsLog;

    @TempDir
    static Path shared;

    /**
     * Two runs for the whole class (each starts serve JVMs, the class' cost): the default one most
     * tests read, and one with {@code --serve-java-option}s that only the plugin process sees, which
     * is also the second run {@link #demoLeavesNoThreadFileDescriptorOrWatchBehind} measures.
     */
    @BeforeAll
    static void runDemoTwice() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        exitCode = demo(out, err);
        output = out.toString();
        errors = err.toString();

        afterFirstRun = ProcessLevels.now();
        optionsLog = shared.resolve("serve-jvm.log");
        StringWriter optionsErr = new StringWriter();
        optionsExitCode = demo(new StringWriter(), optionsErr, "--serve-java-option=-XX:+UseParallelGC",
                "--serve-java-option=-Xlog:gc,class+load:file=" + optionsLog);
        optionsErrors = optionsErr.toString();
    }

    private static int demo(StringWriter out, String... options) {
        return demo(out, new StringWriter(), options);
    }

    private static int demo(StringWriter out, StringWriter err, String... options) {
        CommandLine cl = DemoMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return cl.execute(options);
    }

    private static String group(String regex, String in) {
        Matcher m = Pattern.compile(regex).matcher(in);
        assertThat(m.find()).as("%s in%n%s", regex, in).isTrue();
        return m.group(1);
    }

    @Test
    void demoExitsZero() {
        assertThat(exitCode).as(errors).isZero();
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
    void demoStartsServeWithTheNodeTheSimulatorAndLoopbackMetricsWithoutKubernetes() {
        String work = group("rebuilt in (\\S+)/node ", output);

        assertThat(output).contains("\n   serve --sysfs-root " + work + "/node/sys --dev-root " + work + "/node/dev --device-plugin-dir "
                + work + "/device-plugins --pod-resources-socket " + work + "/pod-resources/kubelet.sock --metrics-address 127.0.0.1:0"
                + " --kubevirt off\n");
    }

    @Test
    void afterTheAllocationServesMetricsAndInventoryNameTheVmsPod() {
        assertThat(output).contains("== One allocation per resource, as the kubelet asks when it admits a VM's pod (vms/virt-launcher-vm1-x7k2p,",
                "  GET /metrics  1 vfio_dp_device_holder_info series (serve read PodResources after the Allocate):\n"
                        + "    vfio_dp_device_holder_info{claim=\"\",container=\"compute\",device=\"0000:b1:00.0\",namespace=\"vms\","
                        + "pod=\"virt-launcher-vm1-x7k2p\",resource=\"nvidia.com/TU104GL_TESLA_T4\",vm=\"\",vmi=\"\"} 1.0\n",
                "    holders: the kubelet's PodResources; VMIs unknown (the demo's device-plugin part runs without a Kubernetes API)\n",
                "                  held by pod vms/virt-launcher-vm1-x7k2p, container compute, through nvidia.com/TU104GL_TESLA_T4\n");
        assertThat(output).containsPattern("\n    0000:b1:00\\.0 .* Healthy +vms/virt-launcher-vm1-x7k2p +exposed as nvidia\\.com/TU104GL_TESLA_T4\n");
        assertThat(output).containsPattern("\n    0000:1a:00\\.0 .* Healthy +free +exposed as");
    }

    @Test
    void demoRunsServeAsAProcessOfItsOwnThatHasEndedWhenItReturns() {
        long pid = Long.parseLong(group("\n   serve runs as process (\\d+)\n", output));

        assertThat(pid).isNotEqualTo(ProcessHandle.current().pid());
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
    }

    /**
     * What the image's build trains its class archive with: the options reach the plugin process,
     * which loads serve's classes and not the demo's own (the kubelet simulator).
     */
    @Test
    void serveJavaOptionsGoToThePluginProcess() throws Exception {
        assertThat(optionsExitCode).as(optionsErrors).isZero();
        assertThat(Files.readString(optionsLog)).contains("Using Parallel", "io.vfiodp.cli.ServeCommand source:")
                .doesNotContain("io.vfiodp.testkit.deviceplugin.KubeletSimulator");
    }

    @Test
    void aPluginProcessThatCannotStartEndsTheDemoWithItsStatusAndOutput() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();

        int exit = demo(out, err, "--serve-java-option=-XX:+NoSuchOptionForTheDemo");

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).matches("""
                vfio-device-plugin demo: serve ended before serving; the plugin process \\(pid \\d+\\) exited with status 1; its last output lines:
                  Unrecognized VM option 'NoSuchOptionForTheDemo'
                  Error: Could not create the Java Virtual Machine.
                  Error: A fatal exception has occurred. Program will exit.
                """);
        assertThat(out.toString()).doesNotContain("== Registrations");
    }

    @Test
    void demoPrintsWhatServesProbesAnswerOverHttp() {
        assertThat(output).containsPattern("\n== Health and metrics \\(what serve's HTTP endpoints answer, on http://127\\.0\\.0\\.1:\\d+\\)\n"
                + "  GET /healthz  200  ok: reconcile loop answered in \\d+ ms\n"
                + "  GET /readyz   200  ready: 1 resource\\(s\\) registered with the kubelet\n");
    }

    @Test
    void probesOnlyAsksTheDemoForTheProbesAlone() {
        CommandLine.ParseResult parsed = DemoMain.commandLine().parseArgs("--probes-only");

        assertThat(((DemoCommand) parsed.commandSpec().userObject()).probesOnly).isTrue();
    }

    @Test
    void demoPrintsTheDeviceRegistrationAndVfioLinesOfMetrics() {
        assertThat(output).containsPattern("  GET /metrics  200  4 of its \\d+ lines:\n");
        assertThat(output).contains("""
                    vfio_dp_devices{health="Healthy",resource="nvidia.com/TU104GL_TESLA_T4"} 3.0
                    vfio_dp_devices{health="Unhealthy",resource="nvidia.com/TU104GL_TESLA_T4"} 1.0
                    vfio_dp_registrations_total{resource="nvidia.com/TU104GL_TESLA_T4"} 1.0
                    vfio_dp_vfio_available 0.0
                  (vfio_dp_vfio_available is 0: the demo node's dev/vfio/vfio is a plain file, which answers no VFIO ioctl)

                == One allocation per resource""");
    }

    /**
     * Run with {@code --verbose} in a JVM of its own (slf4j-simple fixes its level once per JVM):
     * the plugin process' log lines on the demo's stderr, from serve's own start, the VFIO check on
     * the node's {@code dev/vfio/vfio} and the metrics server the section above was read from to
     * the shutdown SIGTERM starts.
     */
    @Test
    void demoVerboseShowsThePluginProcessLogLines(@TempDir Path tmp) throws Exception {
        List<String> command = new ArrayList<>(ServeJvm.command(List.of("--verbose")));
        command.set(command.indexOf(Main.class.getName()), DemoMain.class.getName());
        Process p = new ProcessBuilder(command)
                .redirectOutput(tmp.resolve("out").toFile()).redirectError(tmp.resolve("err").toFile()).start();
        try {
            // generous: the demo starts two serve JVMs besides its own, on a 2-core machine other builds share
            assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("demo finished").isTrue();
        } finally {
            p.destroyForcibly();
        }
        String out = Files.readString(tmp.resolve("out"));
        String err = Files.readString(tmp.resolve("err"));
        String work = group("rebuilt in (\\S+)/node ", out);
        String port = group("what serve's HTTP endpoints answer, on http://127\\.0\\.0\\.1:(\\d+)\\)", out);

        assertThat(p.exitValue()).as(err).isZero();
        assertThat(err).contains(
                "INFO serve: sysfs " + work + "/node/sys, dev " + work + "/node/dev, device-plugin dir " + work
                        + "/device-plugins, uevents auto, metrics on 127.0.0.1:0; permitted devices from the default NVIDIA naming\n",
                "INFO kernel uevents not used: --sysfs-root " + work + "/node/sys is no sysfs mount",
                "WARN VFIO unavailable: " + work + "/node/dev/vfio/vfio: VFIO_GET_API_VERSION failed: errno 25 (Inappropriate ioctl for device)\n",
                "INFO metrics on http://127.0.0.1:" + port + "/metrics, probes /healthz and /readyz\n",
                "INFO nvidia.com/TU104GL_TESLA_T4: registered with the kubelet (endpoint vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock)\n",
                "INFO nvidia.com/TU104GL_TESLA_T4: stopped; socket vfio-dp-nvidia.com_TU104GL_TESLA_T4.sock removed\n");
    }

    /**
     * The second run (with serve's JVM options, which only the plugin process sees) against a
     * baseline taken after the first, so that it already holds what the first one opened for good
     * (the class path's jars); first of the class' tests, so that nothing else ran since. The threads that end by themselves ({@link io.vfiodp.plugin.Leaks#endsByItself})
     * are not counted: the JDK's keep-alive timer (the connections themselves are closed, the file
     * descriptors say so) and process reaper, and fabric8's shared scheduler, which the DRA part's
     * client requests start.
     */
    @Test
    @Order(1)
    void demoLeavesNoThreadFileDescriptorOrWatchBehind() throws Exception {
        assertThat(optionsExitCode).as(optionsErrors).isZero();

        ProcessLevels.awaitBackTo(afterFirstRun, Duration.ofSeconds(30));
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

    /** The test class path has the mock API server, as bin/vfio-device-plugin's after ./mvnw package. */
    @Test
    void demoRunsTheDraPathOnTheSameNodeAndDevice() {
        assertThat(output).contains("== DRA: the same node, every resource through the DRA driver; fabric8's mock API server (CRUD) on",
                "--node-name demo-node --dra-resources all --dra-registry-dir ",
                "  GetInfo: DRAPlugin vfio-device-plugin.io, endpoint ",
                "/plugins/vfio-device-plugin.io/dra.sock, services [v1.DRAPlugin, v1beta1.DRAPlugin, v1alpha1.DRAResourceHealth]; the kubelet uses"
                        + " v1.DRAPlugin\n",
                "  GET /readyz  200  ready: 0 resource(s) and the DRA driver registered with the kubelet\n",
                "== ResourceSlice demo-node-vfio-device-plugin.io-0 (driver vfio-device-plugin.io, pool demo-node generation 1, node demo-node,"
                        + " owned by Node demo-node); an unhealthy device stays in, tainted with the reason\n",
                "  pci-0000-b2-00-0  deviceID=0x1eb8, iommuGroup=65, kind=passthrough, ",
                "      taint vfio-device-plugin.io/unhealthy=IOMMU-group-65-dev-vfio-65-missing:NoSchedule\n",
                "== ResourceClaim vms/vm-gpu, allocated as the scheduler leaves it: request gpu -> pci-0000-b1-00-0 in pool demo-node"
                        + " (0000:b1:00.0, the device Allocate handed out above)\n",
                "== NodeUnprepareResources (the VM's pod is gone): ok; CDI specs left in ",
                "== Shut down: serve stopped, its registration and DRA sockets removed\n");
        // all four are published; 0000:b2:00.0, whose group node is missing, with its taint
        assertThat(output.lines().filter(l -> l.startsWith("  pci-0000-")).map(l -> l.split(" ")[2]))
                .containsExactly("pci-0000-1a-00-0", "pci-0000-1b-00-0", "pci-0000-b1-00-0", "pci-0000-b2-00-0");
    }

    @Test
    void demoPrintsThePreparedClaimsCdiSpecMetadataAndTheSameHostdevAsTheDevicePluginPath() {
        String uid = group("\\[gpu] demo-node/pci-0000-b1-00-0  CDI devices \\[vfio-device-plugin.io/vfio=(\\S+)-pci-0000-b1-00-0, ", output);
        assertThat(output).contains("vfio-device-plugin.io/metadata=" + uid + "_gpu]\n",
                "/cdi/vfio-device-plugin.io_vfio_" + uid + ".json (the container runtime applies it):\n",
                "\"path\" : \"/dev/vfio/vfio\",", "\"path\" : \"/dev/vfio/64\",",
                "\"containerPath\" : \"/var/run/kubernetes.io/dra-device-attributes/resourceclaims/vm-gpu/gpu/vfio-device-plugin.io-metadata.json\"",
                "/dra-device-metadata/vms_vm-gpu_" + uid + "/gpu/metadata.json (mounted into the pod, where virt-launcher reads it):\n",
                "\"apiVersion\" : \"metadata.resource.k8s.io/v1alpha1\"",
                "    from the metadata's resource.kubernetes.io/pciBusID 0000:b1:00.0, where the device-plugin path has"
                        + " PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4:\n");
        String hostdev = """
                      <hostdev mode="subsystem" type="pci" managed="no">
                        <source>
                          <address domain="0x0000" bus="0xb1" slot="0x00" function="0x0"/>
                        </source>
                        <alias name="ua-gpu-gpu0"/>
                      </hostdev>
                """;
        int devicePlugin = output.indexOf(hostdev);
        assertThat(devicePlugin).as(output).isPositive().isLessThan(output.indexOf("== DRA:"));
        assertThat(output.indexOf(hostdev, output.indexOf("== NodePrepareResources"))).as("the DRA path's <hostdev>").isPositive();
    }

    /** KEP-5004: the VM's pod asks the extended resource, the scheduler's claim goes through the DRA driver, and the pod gets what Allocate gave. */
    @Test
    void demoRunsAVmsPodThroughTheExtendedResourcePathToTheEnvAndNodesAllocateGave() {
        assertThat(output).contains("   DeviceClass tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io (extendedResourceName"
                        + " nvidia.com/TU104GL_TESLA_T4, as `inventory --dra-resources all --device-classes` prints it) applied; serve only reads it\n",
                "== A VM as it runs today, gpus: [{deviceName: nvidia.com/TU104GL_TESLA_T4}], on DRA unchanged: its virt-launcher pod asks"
                        + " nvidia.com/TU104GL_TESLA_T4: 1\n",
                ": request container-0-request-5 -> pci-0000-b1-00-0, and pod.status.extendedResourceClaimStatus maps container compute's"
                        + " nvidia.com/TU104GL_TESLA_T4 to it\n",
                """
                            env     PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:b1:00.0    env     PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4=0000:b1:00.0
                            device  /dev/vfio/vfio                                           device  /dev/vfio/vfio
                            device  /dev/vfio/64                                             device  /dev/vfio/64
                            the same env and device nodes: virt-launcher reads [PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4] as before
                          NodeUnprepareResources (the VM's pod is gone): ok
                        """,
                "  GET /metrics  vfio_dp_dra_device_class_ready{device_class=\"tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io\","
                        + "driver=\"vfio-device-plugin.io\",resource=\"nvidia.com/TU104GL_TESLA_T4\"} 1.0\n");
        assertThat(output).containsPattern("  NodePrepareResources: the kubelet hands container compute the CDI devices"
                + " \\[vfio-device-plugin.io/vfio=\\S+-container-0-request-5]\n");
    }

    @Test
    void demoShutsDownCleanlyAndRemovesItsTemporaryNode() {
        Matcher m = Pattern.compile("rebuilt in (\\S+)/node ").matcher(output);

        assertThat(output).contains("== Shut down: the streams ended without an empty device list, plugin sockets removed\n"
                + "   the kubelet keeps nvidia.com/TU104GL_TESLA_T4 at capacity 4 and allocatable 0 (its devices Unhealthy) for its"
                + " 5-minute grace, so a restart or upgrade of serve within it leaves the Node's capacity as it was\n");
        assertThat(m.find()).isTrue();
        assertThat(Files.exists(Path.of(m.group(1)))).isFalse();
    }
}
