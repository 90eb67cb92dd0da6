package io.vfiodp.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** NVIDIA's plugin built by the shared build script from a git mirror, or why it could not be. */
sealed interface PeerBuild {

    record Built(Path binary) implements PeerBuild {}

    record Unavailable(String why) implements PeerBuild {}

    /** Runs the build script (which returns at once when the binary is already in {@code out}); its output goes to {@code out/build.log}. */
    static PeerBuild build(Path script, Path mirror, Path out) throws InterruptedException {
        if (mirror.toString().equals("none")) return new Unavailable("--peer none");
        if (!Files.isRegularFile(script)) return new Unavailable("no build script at " + script + " (--peer-scripts DIR)");
        if (!Files.isDirectory(mirror)) return new Unavailable("no git directory at " + mirror + " (--peer GIT_DIR)");
        try {
            Files.createDirectories(out);
            Path log = out.resolve("build.log");
            Process p = new ProcessBuilder("bash", script.toString(), mirror.toString(), out.toString())
                    .redirectError(log.toFile()).start();
            String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            int exit = p.waitFor();
            if (exit != 0) {
                List<String> lines = Files.readAllLines(log);
                return new Unavailable(script.getFileName() + " " + mirror + " exited with " + exit + "; last lines of " + log + ": "
                        + String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size())));
            }
            Path binary = Path.of(stdout.lines().reduce((a, b) -> b).orElse(""));
            if (!Files.isExecutable(binary)) return new Unavailable(script.getFileName() + " printed no executable binary path but '" + stdout + "'");
            return new Built(binary);
        } catch (IOException e) {
            return new Unavailable("cannot run " + script + ": " + e.getMessage());
        }
    }
}
