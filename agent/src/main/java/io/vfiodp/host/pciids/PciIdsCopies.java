package io.vfiodp.host.pciids;

import io.vfiodp.host.RegularFile;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Which pci.ids copy {@link PciIds} reads: an explicit file whatever its version, else the newer
 * by the header's {@code Version:} line of the first system file and the copy bundled in the jar
 * (the same version: the system file). A system file without a {@code Version:} line cannot be
 * told newer, so the bundled copy wins. Only the first lines of each header are read to choose.
 */
final class PciIdsCopies {

    private PciIdsCopies() {}

    static PciIds load(Optional<Path> explicit, List<Path> systemLocations, Optional<Set<Integer>> deviceVendors) throws IOException {
        if (explicit.isPresent()) {
            return read(explicit.get(), deviceVendors, "given explicitly, used whatever its version");
        }
        Optional<Path> system = systemLocations.stream().filter(Files::isRegularFile).findFirst();
        if (system.isEmpty()) {
            return bundled(deviceVendors, "no system pci.ids (" + String.join(", ", systemLocations.stream().map(Path::toString).toList()) + ")");
        }
        Optional<String> systemVersion;
        try (InputStream in = open(system.get())) {
            systemVersion = headerVersion(system.get().toString(), in);
        }
        Optional<String> bundledVersion;
        try (InputStream in = openBundled()) {
            bundledVersion = headerVersion(PciIds.BUNDLED_SOURCE, in);
        }
        String bundledCopy = "the bundled copy" + bundledVersion.map(v -> " (" + v + ")").orElse("");
        if (systemVersion.isEmpty()) {
            return bundled(deviceVendors, system.get() + " has no 'Version:' line to tell its age by");
        }
        int newer = bundledVersion.map(b -> compareVersions(systemVersion.get(), b)).orElse(1);
        if (newer < 0) {
            return bundled(deviceVendors, "newer than " + system.get() + " (" + systemVersion.get() + ")");
        }
        return read(system.get(), deviceVendors, newer == 0 ? "the same version as " + bundledCopy : "newer than " + bundledCopy);
    }

    static PciIds bundled(Optional<Set<Integer>> deviceVendors, String reason) throws IOException {
        try (InputStream in = openBundled()) {
            return PciIds.parse(PciIds.BUNDLED_SOURCE, in, deviceVendors, Optional.of(reason));
        }
    }

    private static InputStream openBundled() throws IOException {
        InputStream in = PciIds.class.getResourceAsStream(PciIds.BUNDLED_RESOURCE);
        if (in == null) throw new IOException(PciIds.BUNDLED_SOURCE + " is missing from the class path");
        return in;
    }

    private static InputStream open(Path file) throws IOException {
        try {
            return Channels.newInputStream(RegularFile.open(file, true));
        } catch (IOException e) {
            throw new IOException("cannot read pci.ids database " + file + ": " + describe(e), e);
        }
    }

    private static PciIds read(Path file, Optional<Set<Integer>> deviceVendors, String reason) throws IOException {
        try (InputStream in = open(file)) {
            return PciIds.parse(file.toString(), in, deviceVendors, Optional.of(reason));
        }
    }

    /**
     * Compares two {@code Version:} values ({@code 2026.10.24}) number by number; a value without
     * digits is older than any with.
     */
    static int compareVersions(String a, String b) {
        int[] x = numbers(a);
        int[] y = numbers(b);
        return Arrays.compare(x, y);
    }

    private static int[] numbers(String version) {
        return Arrays.stream(version.split("\\D+")).filter(p -> !p.isEmpty())
                .mapToInt(p -> p.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(p)).toArray();
    }

    /** Lines of header comment read at most for the {@code Version:} line. */
    private static final int HEADER_LINES = 64;

    /**
     * The {@code Version:} of the header comment ({@code #\tVersion: 2026.10.24}), plain or
     * gzip-compressed content; reads the first lines only.
     */
    private static Optional<String> headerVersion(String source, InputStream raw) throws IOException {
        BufferedInputStream in = new BufferedInputStream(raw, 512);
        in.mark(2);
        boolean gzip = in.read() == 0x1f && in.read() == 0x8b;
        in.reset();
        try (InputStream plain = gzip ? new GZIPInputStream(in, 512) : in;
             BufferedReader lines = new BufferedReader(new InputStreamReader(plain, StandardCharsets.UTF_8), 512)) {
            for (int i = 0; i < HEADER_LINES; i++) {
                String line = lines.readLine();
                if (line == null || !(line.isBlank() || line.startsWith("#"))) break;
                Optional<String> version = versionOf(line);
                if (version.isPresent()) return version;
            }
        } catch (IOException e) {
            throw new IOException("cannot read the header of pci.ids database " + source + ": " + describe(e), e);
        }
        return Optional.empty();
    }

    /** The value of a {@code # Version: ...} comment line with a digit in it. */
    static Optional<String> versionOf(String line) {
        if (!line.startsWith("#")) return Optional.empty();
        String s = line.substring(1).strip();
        if (!s.startsWith("Version:")) return Optional.empty();
        String v = s.substring("Version:".length()).strip();
        return v.chars().anyMatch(Character::isDigit) ? Optional.of(v) : Optional.empty();
    }

    static String describe(IOException e) {
        if (e instanceof RegularFile.NotRegular notRegular) return notRegular.getReason();
        if (e instanceof java.nio.file.NoSuchFileException) return "no such file";
        if (e instanceof java.nio.file.AccessDeniedException) return "permission denied";
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
