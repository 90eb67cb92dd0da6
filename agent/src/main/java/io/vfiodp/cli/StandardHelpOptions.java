package io.vfiodp.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * picocli's standard help options, {@code -h, --help} and {@code -V, --version}, for commands
 * built through picocli's API: {@code CommandSpec.mixinStandardHelpOptions(true)} builds them by
 * reading the annotations of picocli's own mixin, which costs serve's start-up an annotation proxy
 * class and reflection. Spelled as picocli's mixin spells them (names a system property may
 * rename, description keys) and added under its key, so {@code mixinStandardHelpOptions()} still
 * answers true; StandardHelpOptionsTest holds them to picocli's.
 */
final class StandardHelpOptions {

    /** picocli's key for the mixin (its {@code AutoHelpMixin.KEY}). */
    static final String KEY = "mixinStandardHelpOptions";

    private StandardHelpOptions() {}

    /** Adds the two options to {@code command}, last, as picocli does. */
    static CommandSpec addTo(CommandSpec command) {
        CommandSpec mixin = CommandSpec.create()
                .addOption(OptionSpec.builder("${picocli.help.name.0:--h}", "${picocli.help.name.1:---help}").usageHelp(true)
                        .descriptionKey("mixinStandardHelpOptions.help").description("Show this help message and exit.")
                        .type(boolean.class).initialValue(false).build())
                .addOption(OptionSpec.builder("${picocli.version.name.0:--V}", "${picocli.version.name.1:---version}").versionHelp(true)
                        .descriptionKey("mixinStandardHelpOptions.version").description("Print version information and exit.")
                        .type(boolean.class).initialValue(false).build());
        return command.addMixin(KEY, mixin);
    }
}
