package io.vfiodp.host;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * One fact read from a file of the host: its value, the file's absence, or why the file could not
 * be read. Absent and unreadable name the file as the caller gave its root ({@code /sys/module/vfio}),
 * so that whoever reports it names the file an operator can look at.
 */
public sealed interface Reading<T> {

    /** The value, when it was read. */
    Optional<T> known();

    /** The same fact with its value mapped, absence and problems kept. */
    <R> Reading<R> map(Function<T, R> f);

    record Found<T>(T value) implements Reading<T> {
        public Found {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public Optional<T> known() {
            return Optional.of(value);
        }

        @Override
        public <R> Reading<R> map(Function<T, R> f) {
            return new Found<>(f.apply(value));
        }
    }

    /** {@code file} does not exist. */
    record Absent<T>(String file) implements Reading<T> {
        public Absent {
            Objects.requireNonNull(file, "file");
        }

        @Override
        public Optional<T> known() {
            return Optional.empty();
        }

        @Override
        public <R> Reading<R> map(Function<T, R> f) {
            return new Absent<>(file);
        }
    }

    /** {@code file} exists but could not be read as the kernel writes it, for {@code reason}. */
    record Unreadable<T>(String file, String reason) implements Reading<T> {
        public Unreadable {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public Optional<T> known() {
            return Optional.empty();
        }

        @Override
        public <R> Reading<R> map(Function<T, R> f) {
            return new Unreadable<>(file, reason);
        }

        /** {@code /proc/cmdline: not UTF-8 text}. */
        public String describe() {
            return file + ": " + reason;
        }
    }
}
