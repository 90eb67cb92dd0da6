package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

class StandardHelpOptionsTest {

    private static CommandSpec ours() {
        return StandardHelpOptions.addTo(CommandSpec.create().name("x"));
    }

    private static CommandSpec picocli() {
        return CommandSpec.create().name("x").mixinStandardHelpOptions(true);
    }

    /** What an option is to the parser and the usage help. */
    private static List<String> attributes(CommandSpec spec) {
        return spec.options().stream().map(StandardHelpOptionsTest::attributes).toList();
    }

    private static String attributes(OptionSpec o) {
        return String.join(" | ", Arrays.toString(o.names()), Arrays.toString(o.description()), o.descriptionKey(), "usageHelp=" + o.usageHelp(),
                "versionHelp=" + o.versionHelp(), "help=" + o.help(), "arity=" + o.arity(), "type=" + o.type(), "aux=" + Arrays.toString(o.auxiliaryTypes()),
                "required=" + o.required(), "hidden=" + o.hidden(), "negatable=" + o.negatable(), "order=" + o.order(), "default=" + o.defaultValue(),
                "fallback=" + o.fallbackValue(), "initial=" + o.initialValue(), "hasInitial=" + o.hasInitialValue(), "show=" + o.showDefaultValue(),
                "scope=" + o.scopeType(), "inherited=" + o.inherited(), "converters=" + o.converters().length);
    }

    @Test
    void theOptionsArePicocliOwn() {
        assertThat(attributes(ours())).isEqualTo(attributes(picocli())).hasSize(2);
    }

    @Test
    void theyAreMixedInUnderPicocliKey() {
        assertThat(ours().mixins().keySet()).isEqualTo(picocli().mixins().keySet());
        assertThat(ours().mixinStandardHelpOptions()).isTrue();
    }

    @Test
    void theUsageHelpIsPicocliOwn() {
        assertThat(new CommandLine(ours()).getUsageMessage(Ansi.OFF)).isEqualTo(new CommandLine(picocli()).getUsageMessage(Ansi.OFF))
                .contains("-h, --help      Show this help message and exit.");
    }

    @Test
    void helpAndVersionAreRequestsAsWithPicocliOwn() {
        for (String option : List.of("-h", "--help", "-V", "--version", "-hV")) {
            CommandLine oursLine = new CommandLine(ours());
            CommandLine picocliLine = new CommandLine(picocli());
            oursLine.parseArgs(option);
            picocliLine.parseArgs(option);

            assertThat(oursLine.isUsageHelpRequested()).as(option).isEqualTo(picocliLine.isUsageHelpRequested());
            assertThat(oursLine.isVersionHelpRequested()).as(option).isEqualTo(picocliLine.isVersionHelpRequested());
        }
    }
}
