package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Compares output with a committed file under {@code src/test/resources/inventory} (or another
 * directory there), showing the first differing lines on a mismatch. {@code -Dgolden.update=true}
 * rewrites the files instead (review the git diff before committing).
 */
final class GoldenFile {

    private static final int CONTEXT = 8;

    private GoldenFile() {}

    static Path dir() {
        return dir("inventory");
    }

    static Path dir(String resources) {
        String basedir = System.getProperty("basedir");
        Path project = basedir != null ? Path.of(basedir) : Path.of("").toAbsolutePath();
        return project.resolve("src/test/resources").resolve(resources);
    }

    static void assertMatches(String name, String actual) throws IOException {
        assertMatches(dir(), name, actual);
    }

    static void assertMatches(Path dir, String name, String actual) throws IOException {
        Path file = dir.resolve(name);
        if (Boolean.getBoolean("golden.update")) {
            Files.createDirectories(file.getParent());
            Files.writeString(file, actual, StandardCharsets.UTF_8);
            return;
        }
        if (!Files.exists(file)) fail("no golden file " + file + "; run with -Dgolden.update=true to create it");
        String expected = Files.readString(file, StandardCharsets.UTF_8);
        if (expected.equals(actual)) return;
        List<String> e = expected.lines().toList();
        List<String> a = actual.lines().toList();
        int first = 0;
        while (first < e.size() && first < a.size() && e.get(first).equals(a.get(first))) first++;
        StringBuilder diff = new StringBuilder("output differs from " + file + " from line " + (first + 1)
                + " (rerun with -Dgolden.update=true to accept the new output):\n");
        for (int i = first; i < Math.min(e.size(), first + CONTEXT); i++) diff.append("- ").append(e.get(i)).append('\n');
        for (int i = first; i < Math.min(a.size(), first + CONTEXT); i++) diff.append("+ ").append(a.get(i)).append('\n');
        if (e.size() != a.size()) diff.append("(expected ").append(e.size()).append(" lines, got ").append(a.size()).append(")\n");
        fail(diff.toString());
    }
}
