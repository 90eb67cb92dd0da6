package io.vfiodp.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h} (as Kubernetes manifests write them) or ISO-8601 {@code PT30S}. */
final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        Matcher m = SIMPLE.matcher(value.trim());
        Duration d;
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            d = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        } else {
            try {
                d = Duration.parse(value.trim());
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("'" + value + "' is not a duration (write e.g. 500ms, 30s, 5m, 1h)");
            }
        }
        if (d.isZero() || d.isNegative()) throw new TypeConversionException("'" + value + "' must be a positive duration");
        return d;
    }
}
