package io.vfiodp.cli;

import io.vfiodp.demo.DemoKit;
import io.vfiodp.demo.DemoRun;
import io.vfiodp.demo.ServeProcess;
import io.vfiodp.demo.DraDemoPart;
import io.vfiodp.demo.ServeFailure;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            // one element per paragraph: picocli wraps each to the terminal width
            "Run the whole flow on a fixture node bundled in the jar: inventory, serve as a process of its own registering with "
                    + "an in-process kubelet simulator over unix sockets, its /healthz, /readyz and /metrics, one allocation per resource "
                    + "(env vars, device specs, libvirt <hostdev>), clean shutdown.",
            "Then the DRA path on the same node: serve --dra-resources all against fabric8's mock API server and a DRA kubelet "
                    + "simulator, its ResourceSlice, a claim allocated as the scheduler leaves it, NodePrepareResources, the CDI spec, "
                    + "the KEP-5304 metadata and the <hostdev>.",
            "The kubelet simulators (the project's test kit) and the mock server are no part of the jar or the image: "
                    + "bin/vfio-device-plugin adds them from demo/target/demo-lib, which ./mvnw package makes.",
            "Finishes in seconds."})
final class DemoCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(names = "--verbose", description = "Also show the plugin process' log lines (stderr).")
    boolean verbose;

    @Option(names = "--serve-java-option", paramLabel = "OPT",
            description = "A JVM option for the plugin process (repeatable; give it as --serve-java-option=OPT), "
                    + "e.g. --serve-java-option=-Xmx64m or --serve-java-option=@lib/jvm.options. The image's build trains "
                    + "its class archive this way, on the plugin process alone.")
    List<String> serveJavaOptions = new ArrayList<>();

    @Option(names = "--dra-serve-java-option", paramLabel = "OPT",
            description = "A JVM option for the DRA part's plugin process alone, after the --serve-java-option ones (repeatable). "
                    + "The image's build trains its second class archive, for serve with the Kubernetes API, this way.")
    List<String> draServeJavaOptions = new ArrayList<>();

    @Option(names = "--probes-only",
            description = "Ask the plugin's /healthz and /readyz only, not /metrics, as the kubelet does on a node without monitoring. "
                    + "The image's build trains its class archive this way: every class in it is loaded at every start.")
    boolean probesOnly;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Optional<String> missing = DemoKit.missing(DemoCommand.class.getClassLoader());
        if (missing.isPresent()) {
            err.println("vfio-device-plugin demo: " + missing.get());
            err.flush();
            return 1;
        }
        Path work = Files.createTempDirectory("vfio-dp-demo-");
        try {
            Optional<PrintWriter> forward = verbose ? Optional.of(err) : Optional.empty();
            List<String> draJavaOptions = new ArrayList<>(serveJavaOptions);
            draJavaOptions.addAll(draServeJavaOptions);
            new DemoRun(out, DemoRun.DEFAULT_PRINTERS, ServeProcess.starter(serveJavaOptions, forward, Main.class.getName()),
                    DraDemoPart.onClassPathOf(DemoCommand.class.getClassLoader(), ServeProcess.starter(draJavaOptions, forward, Main.class.getName())),
                    probesOnly ? DemoRun.Endpoints.PROBES : DemoRun.Endpoints.PROBES_AND_METRICS).run(work);
        } catch (ServeFailure e) {
            out.flush();
            err.println("vfio-device-plugin demo: " + e.getMessage());
            err.flush();
            return 1;
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
