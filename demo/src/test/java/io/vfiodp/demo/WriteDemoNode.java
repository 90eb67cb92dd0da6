package io.vfiodp.demo;

import io.vfiodp.host.fixtures.SysfsFixtures;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Regenerates the demo node bundled in the demo's jar from the agent's fixture it copies. Run from
 * the demo's directory after the fixture changes:
 * {@code java -cp 'target/classes:target/test-classes:../agent/target/test-classes' io.vfiodp.demo.WriteDemoNode}.
 */
public final class WriteDemoNode {

    static final Path FIXTURE = SysfsFixtures.committedRoot().resolve("t4-numa");
    static final Path BUNDLED = Path.of("src/main/resources" + DemoRun.BUNDLED_NODE);

    private WriteDemoNode() {}

    public static void main(String[] args) throws Exception {
        Files.writeString(BUNDLED, TreeManifest.write(FIXTURE));
        System.out.println("wrote " + BUNDLED + " from " + FIXTURE);
    }
}
