package io.vfiodp.cli;

import io.vfiodp.serve.ServePrestart;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The top-level command. Its model is built through picocli's API, as serve's is: it is on serve's
 * path, where reading annotations cost start-up (see {@link ServeCommand}).
 */
public final class Main implements Runnable {

    private static final Set<String> OWN_OPTIONS = Set.of("-h", "--help", "-V", "--version");

    /** The subcommands' names, in the order the usage help lists them. */
    static final List<String> SUBCOMMANDS = List.of("help", "serve", "inventory", "doctor", "hostdev-xml", "hook-sidecar");

    /**
     * What {@code demo} gets from the jar: the demo runs on the test kit's kubelet simulators, so it is a module of its
     * own (demo/), never in the jar or the image, and bin/vfio-device-plugin of a checkout starts it.
     */
    static final String NO_DEMO = "vfio-device-plugin demo: the demo is not in the jar or the image (it runs on the project's test kit):"
            + " run bin/vfio-device-plugin demo in a checkout after ./mvnw -B -q package -DskipTests";

    /**
     * A new instance of the subcommand {@code name}, or its model (serve and inventory, built in
     * part through picocli's API, hand over theirs). A switch, not a map of constructor references:
     * the class-data archive's build (JDK 25) crashes on a method reference to picocli's
     * HelpCommand, a class the archive cannot hold.
     */
    static Object newSubcommand(String name) {
        return switch (name) {
            case "help" -> new CommandLine.HelpCommand();
            case "serve" -> new ServeCommand().commandSpec();
            case "inventory" -> new InventoryCommand().commandSpec();
            case "doctor" -> new DoctorCommand().commandSpec();
            case "hostdev-xml" -> new HostdevXmlCommand();
            case "hook-sidecar" -> new HookSidecarCommand();
            default -> throw new IllegalArgumentException("no subcommand " + name);
        };
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("demo")) {
            System.err.println(NO_DEMO);
            System.exit(1);
        }
        String[] withCommand = withDefaultCommand(args);
        Optional<ServePrestart> prestart = withCommand[0].equals("serve") ? Optional.of(ServePrestart.begin()) : Optional.empty();
        CommandLine commandLine = commandLineFor(withCommand, System.getenv());
        // serve logs from here on: the logging backend, which the second core initializes, must be ready (ServePrestart)
        prestart.ifPresent(ServePrestart::awaitLogging);
        System.exit(commandLine.execute(withCommand));
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

    /**
     * The command line {@code args} need: with only the subcommand they name, when they name one
     * (other than help). picocli builds an annotated command's model by reflection over its
     * annotations: building all five commands' models was a large part of serve's start-up while
     * picocli's classes were not in the class-data archive (docs/deployment.md, "Build";
     * docs/benchmarks.md, "Choices in the code"); serve's is built through picocli's API
     * ({@link ServeCommand}).
     */
    static CommandLine commandLineFor(String[] args, Map<String, String> env) {
        boolean oneCommand = args.length > 0 && SUBCOMMANDS.contains(args[0]) && !args[0].equals("help");
        return commandLine(env, oneCommand ? List.of(args[0]) : SUBCOMMANDS);
    }

    /** The configured command line, shared by {@link #main} and tests. */
    public static CommandLine commandLine() {
        return commandLine(System.getenv());
    }

    /** The configured command line reading option defaults from {@code env} (tests: a container's env). */
    public static CommandLine commandLine(Map<String, String> env) {
        return commandLine(env, SUBCOMMANDS);
    }

    private static CommandLine commandLine(Map<String, String> env, Collection<String> subcommands) {
        CommandLine cl = new CommandLine(topLevel());
        for (String name : subcommands) cl.addSubcommand(name, newSubcommand(name));
        cl.registerConverter(Path.class, new PathConverter());
        cl.setDefaultValueProvider(new EnvDefaultProvider(env));
        return cl;
    }

    /** The top-level command alone, without subcommands. */
    private static CommandSpec topLevel() {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(new Main()).name("vfio-device-plugin").versionProvider(new VersionProvider());
        spec.usageMessage().description("Kubernetes device plugin for VFIO passthrough of GPUs, vGPUs and permitted PCI devices to KubeVirt VMs.");
        return StandardHelpOptions.addTo(spec);
    }

    /** The top-level command's usage, without its subcommands (as {@code CommandLine.usage} printed it for the annotated class). */
    @Override
    public void run() {
        CommandLine.usage(topLevel(), System.out);
    }
}
