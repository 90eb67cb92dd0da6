package io.vfiodp.demo;

import java.util.Optional;

/**
 * What the demo cannot run without and the shipped jar does not hold: the test kit's kubelet
 * simulators (module testkit). {@code ./mvnw package} copies the kit to {@code demo/target/demo-lib},
 * which {@code bin/vfio-device-plugin} puts on the demo's class path; the image has neither.
 */
public final class DemoKit {

    /** The class the demo's kubelet is; named, not referenced, so that asking loads nothing. */
    static final String KUBELET_SIMULATOR = "io.vfiodp.testkit.deviceplugin.KubeletSimulator";

    private DemoKit() {}

    /** Why the demo cannot run on {@code loader}'s class path, in one line; empty when it can. */
    public static Optional<String> missing(ClassLoader loader) {
        try {
            Class.forName(KUBELET_SIMULATOR, false, loader);
            return Optional.empty();
        } catch (ClassNotFoundException e) {
            return Optional.of("needs the kubelet simulators of the test kit (io.vfiodp:kubelet-testkit), which the image and the jar alone"
                    + " leave out: run bin/vfio-device-plugin demo in a checkout after ./mvnw -B -q package -DskipTests (it adds demo/target/demo-lib)");
        }
    }
}
