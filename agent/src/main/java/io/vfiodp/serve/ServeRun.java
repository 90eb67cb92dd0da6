package io.vfiodp.serve;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code serve} as a process: start, serve until SIGTERM, close everything, exit 0. */
public final class ServeRun {

    private ServeRun() {}

    /** Runs until SIGTERM; the exit status: 0 after a clean shutdown, 1 when serving could not start (the reason on {@code err}). */
    public static int run(ServeConfig config, PrintWriter err) {
        ServeApp app;
        try {
            app = ServeApp.start(config);
        } catch (IOException | RuntimeException e) {
            err.println("vfio-device-plugin serve: " + e.getMessage());
            err.flush();
            return 1;
        }
        AtomicBoolean stoppedBySignal = new AtomicBoolean();
        Thread hook = new Thread(() -> {
            stoppedBySignal.set(true);
            app.close();
            // The JVM would exit with 128+15 after a SIGTERM even though we shut down cleanly;
            // the kubelet's pod lifecycle and systemd read a non-zero status as a failure.
            Runtime.getRuntime().halt(0);
        }, "vfio-dp-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            app.awaitClosed();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!stoppedBySignal.get()) {
            Runtime.getRuntime().removeShutdownHook(hook);
            app.close();
        }
        return 0;
    }
}
