package io.vfiodp.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundledDemoNodeTest {

    @Test
    void bundledNodeMaterialisesToExactlyTheFixtureItWasMadeFrom(@TempDir Path tmp) throws Exception {
        TreeManifest.materialise(DemoRun.bundledNode(), tmp);

        assertThat(TreeManifest.write(tmp))
                .as("%s is stale: regenerate it in demo/ with java -cp 'target/classes:target/test-classes:../agent/target/test-classes' io.vfiodp.demo.WriteDemoNode",
                        WriteDemoNode.BUNDLED)
                .isEqualTo(TreeManifest.write(WriteDemoNode.FIXTURE));
    }
}
