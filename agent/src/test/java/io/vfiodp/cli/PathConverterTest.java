package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

class PathConverterTest {

    private static CommandLine withPathOption() {
        return new CommandLine(CommandSpec.create().addOption(OptionSpec.builder("--dir").type(Path.class).build()));
    }

    @Test
    void convertsAsPath() {
        assertThat(new PathConverter().convert("/var/lib/kubelet/../kubelet")).isEqualTo(Path.of("/var/lib/kubelet/../kubelet"));
        assertThat(new PathConverter().convert("")).isEqualTo(Path.of(""));
    }

    @Test
    void aPathTheFileSystemRefusesIsReportedInPicocliWords() {
        CommandLine ours = withPathOption();
        ours.registerConverter(Path.class, new PathConverter());

        String oursSays = catchThrowableOfType(ParameterException.class, () -> ours.parseArgs("--dir", "a\0b")).getMessage();
        String picocliSays = catchThrowableOfType(ParameterException.class, () -> withPathOption().parseArgs("--dir", "a\0b")).getMessage();

        assertThat(oursSays).isEqualTo(picocliSays)
                .isEqualTo("Invalid value for option '--dir': cannot convert 'a\0b' to interface java.nio.file.Path"
                        + " (java.nio.file.InvalidPathException: Nul character not allowed: a\0b)");
    }
}
