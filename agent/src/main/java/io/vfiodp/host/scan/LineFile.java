package io.vfiodp.host.scan;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A text file of {@code /proc} read line by line, as {@link AttributeFile} reads a single value:
 * not through a link, strict UTF-8, at most {@code maxChars} characters. For files that grow with
 * the machine ({@code /proc/interrupts} has a column per CPU and a line per interrupt): the caller
 * stops as soon as it knows enough.
 */
final class LineFile {

    /** Takes lines until it returns false. */
    @FunctionalInterface
    interface Lines {
        boolean take(String line);
    }

    private LineFile() {}

    /** Feeds the lines of {@code path} (real, inside the root) to {@code lines}; {@code shownAs} names it in problems. */
    static void read(String path, String shownAs, long maxChars, Lines lines) throws EntryUnreadable {
        Path file = Path.of(path);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
             BufferedReader reader = new BufferedReader(Channels.newReader(ch, StandardCharsets.UTF_8.newDecoder()
                     .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT), -1))) {
            long read = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                read += line.length() + 1;
                if (read > maxChars) throw new EntryUnreadable(shownAs, "larger than " + maxChars + " characters");
                if (!lines.take(line)) return;
            }
        } catch (CharacterCodingException e) {
            throw new EntryUnreadable(shownAs, "not UTF-8 text");
        } catch (NoSuchFileException e) {
            throw EntryUnreadable.missing(shownAs);
        } catch (IOException e) {
            if (Files.isSymbolicLink(file)) throw new EntryUnreadable(shownAs, "is a symbolic link, not a file");
            if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) throw new EntryUnreadable(shownAs, "is a directory, not a file");
            throw new EntryUnreadable(shownAs, "cannot read: " + ConfinedTree.describe(e));
        }
    }
}
