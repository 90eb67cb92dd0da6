package io.vfiodp.host.scan;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * A text file of {@code /proc} read line by line, as {@link AttributeFile} reads a single value:
 * a regular file, not through a link, strict UTF-8, at most {@code maxChars} characters. For
 * files that grow with the machine ({@code /proc/interrupts} has a column per CPU and a line per
 * interrupt): the caller stops as soon as it knows enough. {@code /proc/config.gz} is read the
 * same way, inflated on the way.
 */
final class LineFile {

    /** Takes lines until it returns false. */
    @FunctionalInterface
    interface Lines {
        boolean take(String line);
    }

    private LineFile() {}

    /** Feeds the lines of {@code path} (real, inside {@code tree}'s root) to {@code lines}; {@code shownAs} names it in problems. */
    static void read(ConfinedTree tree, String path, String shownAs, long maxChars, Lines lines) throws EntryUnreadable {
        read(tree, path, shownAs, maxChars, false, lines);
    }

    /** As {@link #read(ConfinedTree, String, String, long, Lines)}, for a gzip-compressed file; {@code maxChars} counts the text inflated. */
    static void readGzip(ConfinedTree tree, String path, String shownAs, long maxChars, Lines lines) throws EntryUnreadable {
        read(tree, path, shownAs, maxChars, true, lines);
    }

    private static void read(ConfinedTree tree, String path, String shownAs, long maxChars, boolean gzip, Lines lines) throws EntryUnreadable {
        try (FileChannel ch = tree.openFile(path, shownAs, "a file");
             BufferedReader reader = new BufferedReader(gzip
                     ? new InputStreamReader(new GZIPInputStream(Channels.newInputStream(ch)), utf8())
                     : Channels.newReader(ch, utf8(), -1))) {
            long read = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                read += line.length() + 1;
                if (read > maxChars) throw new EntryUnreadable(shownAs, "larger than " + maxChars + " characters");
                if (!lines.take(line)) return;
            }
        } catch (CharacterCodingException e) {
            throw new EntryUnreadable(shownAs, "not UTF-8 text");
        } catch (ZipException e) {
            throw new EntryUnreadable(shownAs, "not gzip data");
        } catch (EOFException e) {
            throw new EntryUnreadable(shownAs, gzip ? "gzip data cut short" : "cut short");
        } catch (IOException e) {
            throw new EntryUnreadable(shownAs, "cannot read: " + ConfinedTree.describe(e));
        }
    }

    private static CharsetDecoder utf8() {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    }
}
