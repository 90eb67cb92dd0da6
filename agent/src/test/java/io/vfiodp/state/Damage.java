package io.vfiodp.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a bad disk, a hand or an attacker does to a state file, for the property tests that damage
 * the agent's state files between restarts: bytes changed, the file cut short, garbage, emptied,
 * valid JSON of the wrong types (in the checksum-less form of earlier releases), another version,
 * removed, or a directory in its place.
 */
public enum Damage {
    NONE, FLIPPED_BYTE, TRUNCATED, GARBAGE, EMPTIED, WRONG_TYPES, OTHER_VERSION, REMOVED, DIRECTORY;

    private static final Pattern VERSION = Pattern.compile("\"version\" : (\\d+)");

    /** Does this to {@code file} (if it is there), {@code pick} choosing where. */
    public void to(Path file, int pick) {
        try {
            if (this == NONE || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) return;
            byte[] bytes = Files.readAllBytes(file);
            switch (this) {
                case NONE -> { }
                case FLIPPED_BYTE -> {
                    if (bytes.length > 0) bytes[Math.floorMod(pick, bytes.length)] ^= (byte) (1 << Math.floorMod(pick, 7));
                    Files.write(file, bytes);
                }
                case TRUNCATED -> Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length == 0 ? 0 : Math.floorMod(pick, bytes.length)));
                case GARBAGE -> Files.writeString(file, "garbage\nmore garbage\n\u0000\u0007 and more\n");
                case EMPTIED -> Files.write(file, new byte[0]);
                case WRONG_TYPES -> Files.writeString(file, switch (Math.floorMod(pick, 4)) {
                    case 0 -> "{\"version\": 1, \"driver\": \"vfio-device-plugin.io\", \"claims\": {}, \"mdevs\": {}, \"vfs\": \"x\"}";
                    case 1 -> "{\"version\": 1, \"driver\": \"vfio-device-plugin.io\", \"claims\": \"x\", \"mdevs\": 7, \"vfs\": []}";
                    case 2 -> "{\"version\": 1, \"driver\": \"vfio-device-plugin.io\"}";
                    default -> "{\"version\": 1, \"driver\": \"vfio-device-plugin.io\", \"claims\": [{\"uid\": \"u\", \"namespace\": \"vms\","
                            + " \"name\": \"c\", \"devices\": {}}]}";
                });
                case OTHER_VERSION -> {
                    Matcher m = VERSION.matcher(new String(bytes, StandardCharsets.UTF_8));
                    if (m.find()) Files.writeString(file, m.replaceFirst("\"version\" : " + (Integer.parseInt(m.group(1)) + 1 + Math.floorMod(pick, 5))));
                }
                case REMOVED -> Files.delete(file);
                case DIRECTORY -> {
                    Files.delete(file);
                    Files.createDirectory(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
