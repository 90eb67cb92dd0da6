package io.vfiodp.cli;

import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every long option {@code --some-option} may also come from {@code VFIO_DP_SOME_OPTION}, so a
 * DaemonSet can configure the plugin through env vars alone. An explicit option still wins.
 */
final class EnvDefaultProvider implements IDefaultValueProvider {
    static final String PREFIX = "VFIO_DP_";

    private final Map<String, String> env;

    EnvDefaultProvider(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    static String envName(String longOption) {
        String bare = longOption.replaceFirst("^-+", "");
        return PREFIX + bare.replace('-', '_').toUpperCase(Locale.ROOT);
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (arg instanceof OptionSpec option) {
            String value = env.get(envName(option.longestName()));
            if (value != null) {
                return value;
            }
        }
        return arg.defaultValue();
    }
}
