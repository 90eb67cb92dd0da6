package io.vfiodp.cli;

import io.vfiodp.demo.DemoRun;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Run the whole flow on a fixture node bundled in the jar: inventory, registration with an in-process kubelet",
            "simulator over unix sockets, one allocation per resource (env vars and device specs), clean shutdown.",
            "Needs nothing but this jar; finishes in seconds."})
final class DemoCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--verbose", description = "Also show the plugin's own log lines (stderr).")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        if (!verbose) {
            // slf4j-simple reads its level once, when the first logger is made; nothing has logged yet.
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        PrintWriter out = spec.commandLine().getOut();
        Path work = Files.createTempDirectory("vfio-dp-demo-");
        try {
            new DemoRun(out, DemoRun.DEFAULT_PRINTERS).run(work);
        } finally {
            deleteTree(work);
        }
        out.flush();
        return 0;
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) Files.deleteIfExists(p);
        }
    }
}
