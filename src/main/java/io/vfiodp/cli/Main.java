package io.vfiodp.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

@Command(name = "vfio-device-plugin",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Kubernetes device plugin for VFIO passthrough of GPUs, vGPUs and permitted PCI devices to KubeVirt VMs.",
        subcommands = {CommandLine.HelpCommand.class, ServeCommand.class, DemoCommand.class, InventoryCommand.class,
                HostdevXmlCommand.class, HookSidecarCommand.class})
public final class Main implements Runnable {

    private static final java.util.Set<String> OWN_OPTIONS = java.util.Set.of("-h", "--help", "-V", "--version");

    public static void main(String[] args) {
        System.exit(commandLine().execute(withDefaultCommand(args)));
    }

    /**
     * {@code serve} is the default command: a DaemonSet runs the image with options (or env
     * vars) only. Arguments that start with an option other than help/version go to serve.
     */
    static String[] withDefaultCommand(String[] args) {
        if (args.length > 0 && (!args[0].startsWith("-") || OWN_OPTIONS.contains(args[0]))) return args;
        String[] withServe = new String[args.length + 1];
        withServe[0] = "serve";
        System.arraycopy(args, 0, withServe, 1, args.length);
        return withServe;
    }

    /** The configured command line, shared by {@link #main} and tests. */
    public static CommandLine commandLine() {
        return commandLine(System.getenv());
    }

    /** The configured command line reading option defaults from {@code env} (tests: a container's env). */
    public static CommandLine commandLine(java.util.Map<String, String> env) {
        CommandLine cl = new CommandLine(new Main());
        cl.setDefaultValueProvider(new EnvDefaultProvider(env));
        return cl;
    }

    @Override
    public void run() {
        CommandLine.usage(this, System.out);
    }
}
