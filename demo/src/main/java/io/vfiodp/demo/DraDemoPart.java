package io.vfiodp.demo;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The demo's DRA part: the same node served through the DRA driver, against fabric8's mock API
 * server in the demo's process. The mock server is a test tool and stays out of the shipped jar
 * and image; {@code ./mvnw package} copies it to {@code demo/target/demo-lib}, which
 * {@code bin/vfio-device-plugin} puts on the demo's class path. Without it the part says so in one
 * line and the demo shows the device-plugin path alone.
 */
public sealed interface DraDemoPart permits DraDemoPart.Skipped, DraDemo {

    /** The class the DRA part cannot run without. */
    String MOCK_SERVER = "io.fabric8.kubernetes.client.server.mock.KubernetesMockServer";

    /**
     * What the part gets from the device-plugin part before it.
     *
     * @param node            the rebuilt node (sys/, dev/)
     * @param workDir         where the part may create its directories
     * @param allocated       the first allocation the device plugin's Allocate made, if one: the part claims the same device,
     *                        and shows what a VM's pod gets through DRA beside it
     * @param endpoints       which of serve's HTTP endpoints the part may ask, as the device-plugin part
     */
    record Setting(PrintWriter out, Path node, Path workDir, DemoRun.ServeStarter serve, Optional<DemoAllocation> allocated,
                   DemoRun.Endpoints endpoints) {

        /** The PCI address Allocate handed out first, if one. */
        Optional<String> allocatedDevice() {
            return allocated.map(a -> a.deviceIds().getFirst());
        }
    }

    void run(Setting setting) throws Exception;

    /** Left out, and why, in one line. */
    record Skipped(String why) implements DraDemoPart {
        @Override
        public void run(Setting setting) {
            setting.out().println();
            setting.out().println("== DRA: skipped: " + why);
        }
    }

    /** The DRA part when the mock server is on the class path, else {@link Skipped}; its serve as the device-plugin part's. */
    static DraDemoPart onClassPathOf(ClassLoader loader) {
        return onClassPathOf(loader, Optional.empty());
    }

    /** The same, its serve started by {@code serve} (the image's build trains a class archive on that process alone). */
    static DraDemoPart onClassPathOf(ClassLoader loader, DemoRun.ServeStarter serve) {
        return onClassPathOf(loader, Optional.of(serve));
    }

    private static DraDemoPart onClassPathOf(ClassLoader loader, Optional<DemoRun.ServeStarter> serve) {
        try {
            Class.forName(MOCK_SERVER, false, loader);
        } catch (ClassNotFoundException e) {
            return new Skipped("fabric8's mock API server is not on the class path (the image and `java -jar` leave it out;"
                    + " bin/vfio-device-plugin adds demo/target/demo-lib, which ./mvnw package makes)");
        }
        return new DraDemo(serve);
    }
}
