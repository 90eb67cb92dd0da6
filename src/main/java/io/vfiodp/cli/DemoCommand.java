package io.vfiodp.cli;

import io.vfiodp.demo.DemoRun;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Run the whole flow on a fixture node bundled in the jar: inventory, serve registering with an in-process kubelet",
            "simulator over unix sockets, its /healthz, /readyz and /metrics, one allocation per resource (env vars, device specs,",
            "libvirt <hostdev>), clean shutdown.",
            "Needs nothing but this jar; finishes in seconds."})
final class DemoCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--verbose", description = "Also show the plugin's own log lines (stderr).")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        if (!verbose) {
            // slf4j-simple reads its level once, when the first logger is made; nothing has logged yet.
            // Not warn: serve's VFIO check warns on every demo, whose dev/vfio/vfio is a plain file.
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        }
        PrintWriter out = spec.commandLine().getOut();
        Path work = Files.createTempDirectory("vfio-dp-demo-");
        try {
            new DemoRun(out, DemoRun.DEFAULT_PRINTERS, DemoCommand::serve).run(work);
        } finally {
            deleteTree(work);
        }
        out.flush();
        return 0;
    }

    /**
     * {@code serve} as the DaemonSet starts it: its options parsed by the real command line, then
     * its own start path (VFIO check, /dev/vfio watch, metrics and probe endpoints), without the
     * wait for SIGTERM. No env: the environment of a node where someone tries the demo (say the
     * DaemonSet's VFIO_DP_CONFIG) must not change what the demo serves.
     */
    static DemoRun.RunningServe serve(List<String> options) throws IOException {
        List<String> args = new ArrayList<>(List.of("serve"));
        args.addAll(options);
        CommandLine.ParseResult parsed = Main.commandLine(Map.of()).parseArgs(args.toArray(String[]::new));
        ServeCommand.Serving serving = ((ServeCommand) parsed.subcommand().commandSpec().userObject()).start();
        int port = serving.metricsPort().orElseThrow(() -> {
            serving.close();
            return new IllegalArgumentException("the demo reads serve's endpoints: give serve a --metrics-address");
        });
        return new DemoRun.RunningServe() {
            @Override
            public int metricsPort() {
                return port;
            }

            @Override
            public void close() {
                serving.close();
            }
        };
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) Files.deleteIfExists(p);
        }
    }
}
