package io.vfiodp.plugin;

import io.vfiodp.triggers.Backoff;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How the plugin runs.
 *
 * @param pluginDir           the kubelet's device-plugin directory ({@code kubelet.sock} and our sockets)
 * @param safetySweep         period of the sweep that backs up the directory watch
 * @param registrationTimeout deadline of one {@code Register} call
 * @param registrationBackoff waits between failed registrations (retried for ever)
 */
public record PluginSettings(Path pluginDir, Duration safetySweep, Duration registrationTimeout, Backoff registrationBackoff) {

    public static final Duration DEFAULT_SAFETY_SWEEP = Duration.ofSeconds(5);
    public static final Duration DEFAULT_REGISTRATION_TIMEOUT = Duration.ofSeconds(5);
    public static final Backoff DEFAULT_BACKOFF = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(10));

    public PluginSettings {
        Objects.requireNonNull(pluginDir, "pluginDir");
        requirePositive(safetySweep, "safety sweep interval");
        requirePositive(registrationTimeout, "registration timeout");
        Objects.requireNonNull(registrationBackoff, "registrationBackoff");
    }

    public static PluginSettings of(Path pluginDir) {
        return new PluginSettings(pluginDir, DEFAULT_SAFETY_SWEEP, DEFAULT_REGISTRATION_TIMEOUT, DEFAULT_BACKOFF);
    }

    private static void requirePositive(Duration d, String what) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(what + " must be positive: " + d);
    }
}
