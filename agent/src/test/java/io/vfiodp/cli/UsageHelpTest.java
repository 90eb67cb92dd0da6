package io.vfiodp.cli;

import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;

/**
 * Every command's {@code --help}, byte for byte, as committed under {@code src/test/resources/usage}
 * (defaults from an empty environment): it must not change when a model is built differently.
 */
class UsageHelpTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"serve", "inventory", "doctor", "hostdev-xml", "hook-sidecar"})
    void subcommandUsage(String name) throws IOException {
        CommandLine command = Main.commandLine(Map.of()).getSubcommands().get(name);

        GoldenFile.assertMatches(GoldenFile.dir("usage"), name + ".txt", command.getUsageMessage(Ansi.OFF));
    }

    @Test
    void topLevelUsage() throws IOException {
        GoldenFile.assertMatches(GoldenFile.dir("usage"), "vfio-device-plugin.txt", Main.commandLine(Map.of()).getUsageMessage(Ansi.OFF));
    }
}
