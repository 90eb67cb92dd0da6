package io.vfiodp.doctor;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/** The {@code --config} file as doctor read it. */
public sealed interface ConfigStatus {

    /** No {@code --config}: the default policy names NVIDIA GPUs and NVSwitches. */
    record None() implements ConfigStatus {}

    /** @param warnings fields it ignored */
    record Loaded(Path file, List<String> warnings) implements ConfigStatus {
        public Loaded {
            Objects.requireNonNull(file, "file");
            warnings = List.copyOf(warnings);
        }
    }

    /** serve would refuse to start with it. */
    record Invalid(Path file, String message) implements ConfigStatus {
        public Invalid {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(message, "message");
        }
    }
}
