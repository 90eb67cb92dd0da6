package io.vfiodp.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "vfio-device-plugin",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Kubernetes device plugin for VFIO passthrough of GPUs, vGPUs and permitted PCI devices to KubeVirt VMs.",
        subcommands = {CommandLine.HelpCommand.class, HostdevXmlCommand.class, HookSidecarCommand.class})
public final class Main implements Runnable {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, shared by {@link #main} and tests. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setDefaultValueProvider(new EnvDefaultProvider(System.getenv()));
        return cl;
    }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }
}
