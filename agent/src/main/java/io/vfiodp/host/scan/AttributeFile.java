package io.vfiodp.host.scan;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One sysfs attribute file read the way the scan may read it: a regular file, not through a link, at most
 * {@value #MAX_BYTES} bytes (a single value; anything larger is not one we understand), strict
 * UTF-8, in as few reads as the file allows.
 */
final class AttributeFile {

    static final int MAX_BYTES = 4096;
    /** Nearly every attribute (ids, class, NUMA node, type name) fits; larger ones take a second read. */
    private static final int FIRST_READ_BYTES = 128;

    private AttributeFile() {}

    /** The text of the attribute file {@code path} (real, inside {@code tree}'s root) as stored; {@code shownAs} names it in problems. */
    static String read(ConfinedTree tree, String path, String shownAs) throws EntryUnreadable {
        ByteBuffer buf = ByteBuffer.allocate(FIRST_READ_BYTES);
        try (FileChannel ch = tree.openFile(path, shownAs, "an attribute file")) {
            // Regular files and sysfs attributes hand over everything available up to the buffer
            // size in one read, so a short read is the end: no extra read just to see EOF.
            ch.read(buf);
            if (!buf.hasRemaining()) {
                buf = ByteBuffer.allocate(MAX_BYTES + 1).put(buf.flip());
                while (buf.hasRemaining() && ch.read(buf) > 0) {
                    // keep reading: the file is larger than the first read
                }
                if (!buf.hasRemaining()) {
                    throw new EntryUnreadable(shownAs, "larger than " + MAX_BYTES + " bytes");
                }
            }
        } catch (IOException e) {
            throw new EntryUnreadable(shownAs, "cannot read: " + ConfinedTree.describe(e));
        }
        return decode(Arrays.copyOf(buf.array(), buf.position()), shownAs);
    }

    private static String decode(byte[] bytes, String shownAs) throws EntryUnreadable {
        for (byte b : bytes) {
            if (b < 0) {
                try {
                    CharBuffer chars = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes));
                    return chars.toString();
                } catch (CharacterCodingException e) {
                    throw new EntryUnreadable(shownAs, "not UTF-8 text");
                }
            }
        }
        return new String(bytes, StandardCharsets.US_ASCII);
    }
}
