package io.vfiodp.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.testkit.deviceplugin.KubeletSimulator;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DemoKitTest {

    @Test
    void theKitsKubeletIsTheClassTheDemoRunsWith() {
        assertThat(DemoKit.KUBELET_SIMULATOR).isEqualTo(KubeletSimulator.class.getName());
    }

    @Test
    void withTheKitOnTheClassPathNothingIsMissing() {
        assertThat(DemoKit.missing(DemoKitTest.class.getClassLoader())).isEmpty();
    }

    /** The agent's classes alone, as in the jar and the image: the demo says in one line what it needs. */
    @Test
    void withoutTheKitTheDemoSaysWhatItNeedsAndWhereToGetIt() throws Exception {
        URL agentClasses = Path.of(DemoKit.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toUri().toURL();
        try (URLClassLoader agentAlone = new URLClassLoader(new URL[] {agentClasses}, ClassLoader.getPlatformClassLoader())) {
            assertThat(DemoKit.missing(agentAlone)).hasValue("needs the kubelet simulators of the test kit (io.vfiodp:kubelet-testkit),"
                    + " which the image and the jar alone leave out: run bin/vfio-device-plugin demo in a checkout after ./mvnw -B -q package"
                    + " -DskipTests (it adds demo/target/demo-lib)");
        }
    }
}
