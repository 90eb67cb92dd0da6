package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DefaultCommandTest {

    @Test
    void noArgumentsRunServe() {
        assertThat(Main.withDefaultCommand(new String[0])).containsExactly("serve");
    }

    @Test
    void optionsOnlyGoToServe() {
        assertThat(Main.withDefaultCommand(new String[] {"--sysfs-root", "/host/sys"})).containsExactly("serve", "--sysfs-root", "/host/sys");
    }

    @Test
    void aCommandOrTheTopLevelHelpIsLeftAlone() {
        assertThat(Main.withDefaultCommand(new String[] {"demo"})).containsExactly("demo");
        assertThat(Main.withDefaultCommand(new String[] {"--help"})).containsExactly("--help");
        assertThat(Main.withDefaultCommand(new String[] {"-V"})).containsExactly("-V");
    }

    @Test
    void serveOptionsHaveTheDocumentedDefaults() {
        CommandLine cl = Main.commandLine(java.util.Map.of());
        cl.setDefaultValueProvider(new EnvDefaultProvider(Map.of()));

        CommandLine.ParseResult parsed = cl.parseArgs("serve");
        ServeCommand serve = (ServeCommand) parsed.subcommand().commandSpec().userObject();

        assertThat((Path) serve.devicePluginDir.getValue()).hasToString("/var/lib/kubelet/device-plugins");
        assertThat((KubeVirtMode) serve.kubevirt.getValue()).isEqualTo(KubeVirtMode.auto);
        assertThat((Duration) serve.rescanInterval.getValue()).as("none given: 5m while uevents arrive, else 30s").isNull();
        assertThat((io.vfiodp.serve.UeventMode) serve.uevents.getValue()).isEqualTo(io.vfiodp.serve.UeventMode.auto);
        assertThat((String) serve.metricsAddress.getValue()).isEqualTo(":9402");
        assertThat((String) serve.nodeName.getValue()).isNull();
    }

    @Test
    void serveOptionsComeFromEnvVars() {
        CommandLine cl = Main.commandLine(java.util.Map.of());
        cl.setDefaultValueProvider(new EnvDefaultProvider(Map.of("VFIO_DP_DEVICE_PLUGIN_DIR", "/tmp/dp", "VFIO_DP_KUBEVIRT", "off",
                "VFIO_DP_RESCAN_INTERVAL", "2m")));

        ServeCommand serve = (ServeCommand) cl.parseArgs("serve").subcommand().commandSpec().userObject();

        assertThat((Path) serve.devicePluginDir.getValue()).hasToString("/tmp/dp");
        assertThat((KubeVirtMode) serve.kubevirt.getValue()).isEqualTo(KubeVirtMode.off);
        assertThat((Duration) serve.rescanInterval.getValue()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void eachSubcommandIsRegisteredUnderItsOwnName() {
        Main.SUBCOMMANDS.forEach(name -> assertThat(new CommandLine(Main.newSubcommand(name)).getCommandName()).isEqualTo(name));
        assertThat(Main.commandLine().getSubcommands().keySet()).containsExactly("help", "serve", "inventory", "doctor", "hostdev-xml",
                "hook-sidecar");
    }

    @Test
    void argumentsNamingASubcommandGetACommandLineWithThatSubcommandOnly() {
        assertThat(Main.commandLineFor(new String[] {"serve", "--rescan-interval", "1m"}, Map.of()).getSubcommands()).containsOnlyKeys("serve");
        assertThat(Main.commandLineFor(new String[] {"inventory"}, Map.of()).getSubcommands()).containsOnlyKeys("inventory");
    }

    @Test
    void helpAnOptionOrAnUnknownWordGetEverySubcommand() {
        for (String[] args : new String[][] {{"help", "serve"}, {"--help"}, {"-V"}, {"sevre"}, {}}) {
            assertThat(Main.commandLineFor(args, Map.of()).getSubcommands()).as(String.join(" ", args)).hasSize(Main.SUBCOMMANDS.size());
        }
    }

    @Test
    void aSubcommandsHelpIsTheSameWithOrWithoutItsSiblings() {
        for (String name : Main.SUBCOMMANDS) {
            if (name.equals("help")) continue;
            String alone = Main.commandLineFor(new String[] {name}, Map.of()).getSubcommands().get(name).getUsageMessage();
            assertThat(alone).as(name).isEqualTo(Main.commandLine(Map.of()).getSubcommands().get(name).getUsageMessage());
        }
    }

    @Test
    void serveHelpSaysThatAutoFollowsTheKubeVirtCr() {
        StringWriter help = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(help));

        cl.execute("serve", "--help");

        assertThat(help.toString().replaceAll("\\s+", " ")).contains("auto: follow permittedHostDevices in the KubeVirt CR");
    }

    @Test
    void nodeNameComesFromTheConventionalNodeNameEnvVar() {
        CommandLine cl = Main.commandLine(Map.of("NODE_NAME", "gpu-node-7"));

        ServeCommand serve = (ServeCommand) cl.parseArgs("serve").subcommand().commandSpec().userObject();

        assertThat((String) serve.nodeName.getValue()).isEqualTo("gpu-node-7");
    }

    @Test
    void nodeNameFromOurPrefixOrTheOptionWinsOverNodeName() {
        CommandLine cl = Main.commandLine(java.util.Map.of());
        cl.setDefaultValueProvider(new EnvDefaultProvider(Map.of("NODE_NAME", "a", "VFIO_DP_NODE_NAME", "b")));
        ServeCommand fromPrefix = (ServeCommand) cl.parseArgs("serve").subcommand().commandSpec().userObject();
        CommandLine cl2 = Main.commandLine(java.util.Map.of());
        cl2.setDefaultValueProvider(new EnvDefaultProvider(Map.of("NODE_NAME", "a")));
        ServeCommand fromOption = (ServeCommand) cl2.parseArgs("serve", "--node-name", "c").subcommand().commandSpec().userObject();

        assertThat((String) fromPrefix.nodeName.getValue()).isEqualTo("b");
        assertThat((String) fromOption.nodeName.getValue()).isEqualTo("c");
    }

    @Test
    void serveWithAMissingDevicePluginDirFailsWithAClearMessage() {
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));

        int code = cl.execute("serve", "--sysfs-root", "/nonexistent/sys", "--dev-root", "/nonexistent/dev", "--device-plugin-dir",
                "/nonexistent/device-plugins");

        assertThat(code).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("vfio-device-plugin serve: device-plugin dir /nonexistent/device-plugins does not exist "
                + "(mount the kubelet's /var/lib/kubelet/device-plugins)" + System.lineSeparator());
    }
}
