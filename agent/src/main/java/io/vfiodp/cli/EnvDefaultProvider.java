package io.vfiodp.cli;

import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every long option {@code --some-option} may also come from {@code VFIO_DP_SOME_OPTION}, so a
 * DaemonSet can configure the plugin through env vars alone. An explicit option still wins.
 * {@code --node-name} also reads {@code NODE_NAME}, the name DaemonSets conventionally give the
 * downward API's {@code spec.nodeName}.
 */
final class EnvDefaultProvider implements IDefaultValueProvider {
    static final String PREFIX = "VFIO_DP_";
    private static final Map<String, String> CONVENTIONAL = Map.of("--node-name", "NODE_NAME");

    private final Map<String, String> env;

    EnvDefaultProvider(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    static String envName(String longOption) {
        int dashes = 0;
        while (dashes < longOption.length() && longOption.charAt(dashes) == '-') dashes++;
        return PREFIX + longOption.substring(dashes).replace('-', '_').toUpperCase(Locale.ROOT);
    }

    @Override
    public String defaultValue(ArgSpec arg) {
        if (arg instanceof OptionSpec option) {
            // longestName() interpolates every name each time it is asked: once per option
            String longest = option.longestName();
            String value = env.get(envName(longest));
            if (value != null) {
                return value;
            }
            String conventional = CONVENTIONAL.get(longest);
            if (conventional != null && env.get(conventional) != null) {
                return env.get(conventional);
            }
        }
        return arg.defaultValue();
    }
}
