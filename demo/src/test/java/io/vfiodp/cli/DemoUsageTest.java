package io.vfiodp.cli;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Help.Ansi;

/** The demo's {@code --help}, byte for byte, as committed in {@code src/test/resources/usage} (the agent's UsageHelpTest has the others). */
class DemoUsageTest {

    @Test
    void demoUsage() throws IOException {
        GoldenFile.assertMatches(GoldenFile.dir("usage"), "demo.txt", DemoMain.commandLine().getUsageMessage(Ansi.OFF));
    }
}
