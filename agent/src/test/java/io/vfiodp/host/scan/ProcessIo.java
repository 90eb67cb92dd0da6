package io.vfiodp.host.scan;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's I/O counters from {@code /proc/self/io}. */
final class ProcessIo {

    private ProcessIo() {}

    /** {@code rchar}: bytes the process has read by {@code read(2)} and friends, from any file, so far. */
    static long readChars() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
            if (line.startsWith("rchar:")) return Long.parseLong(line.substring("rchar:".length()).strip());
        }
        throw new IOException("/proc/self/io has no rchar line");
    }
}
