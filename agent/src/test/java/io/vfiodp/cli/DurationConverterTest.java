package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class DurationConverterTest {

    private final DurationConverter converter = new DurationConverter();

    @Test
    void acceptsKubernetesStyleUnits() {
        assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(converter.convert("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(converter.convert("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(converter.convert("1h")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void acceptsIso8601() {
        assertThat(converter.convert("PT45S")).isEqualTo(Duration.ofSeconds(45));
    }

    @Test
    void refusesTextThatIsNoDurationNamingIt() {
        assertThatThrownBy(() -> converter.convert("30 sec")).isInstanceOf(TypeConversionException.class)
                .hasMessage("'30 sec' is not a duration (write e.g. 500ms, 30s, 5m, 1h)");
    }

    @Test
    void refusesZero() {
        assertThatThrownBy(() -> converter.convert("0s")).isInstanceOf(TypeConversionException.class)
                .hasMessage("'0s' must be a positive duration");
    }
}
