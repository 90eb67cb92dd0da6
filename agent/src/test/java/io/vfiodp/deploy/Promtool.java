package io.vfiodp.deploy;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus's own checker, {@code promtool} (Debian's package {@code prometheus}, which
 * {@code .ci/run} installs): {@code $PROMTOOL}, else the first on {@code PATH}. Finding none is a
 * failure, never a skip: the rules and the exposition would go unchecked.
 */
record Promtool(Path binary) {

    /** What one run answered. */
    record Run(int exitCode, String output) {
        @Override
        public String toString() {
            return "exit " + exitCode + ":\n" + output;
        }
    }

    static Promtool find() {
        Optional<Path> explicit = Optional.ofNullable(System.getenv("PROMTOOL")).filter(s -> !s.isBlank()).map(Path::of);
        if (explicit.isPresent()) {
            if (!Files.isExecutable(explicit.get())) throw new AssertionError("PROMTOOL=" + explicit.get() + " is not an executable file");
            return new Promtool(explicit.get());
        }
        for (String dir : Optional.ofNullable(System.getenv("PATH")).orElse("").split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "promtool");
            if (Files.isExecutable(p)) return new Promtool(p);
        }
        throw new AssertionError("no promtool to check the Prometheus rules and metrics with: run .ci/run (it installs Debian's "
                + "prometheus package), or apt-get install prometheus, or set PROMTOOL to one");
    }

    /** {@code promtool args...} in {@code dir}, with {@code stdin} on its standard input. */
    Run run(Path dir, Optional<String> stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(binary.toString()));
        command.addAll(List.of(args));
        try {
            Path out = Files.createTempFile("promtool-", ".out");
            try {
                ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(out.toFile());
                Process p = builder.start();
                try (var in = p.getOutputStream()) {
                    if (stdin.isPresent()) in.write(stdin.get().getBytes(StandardCharsets.UTF_8));
                }
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError(String.join(" ", command) + " did not finish within 60 s");
                }
                return new Run(p.exitValue(), Files.readString(out));
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted running " + command, e);
        }
    }
}
