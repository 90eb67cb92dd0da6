package io.vfiodp.cli;

import picocli.CommandLine;

/**
 * The demo's main class, as {@code vfio-device-plugin demo}: bin/vfio-device-plugin of a checkout starts it for
 * {@code demo}, and the image's build for its training runs, each on the agent's jar, then the demo's jar and
 * demo/target/demo-lib (the agent's jar has no {@code demo}: {@link Main#NO_DEMO}).
 */
public final class DemoMain {

    private DemoMain() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The demo's command line, named and reading option defaults from the environment as the agent's commands do. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new DemoCommand()).setCommandName("vfio-device-plugin demo");
        cl.setDefaultValueProvider(new EnvDefaultProvider(System.getenv()));
        return cl;
    }
}
