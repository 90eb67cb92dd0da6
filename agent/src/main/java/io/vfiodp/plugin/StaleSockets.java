package io.vfiodp.plugin;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Our socket files that nobody listens on any more: a run that was killed (SIGKILL, OOM, node
 * crash) leaves them behind, and the kubelet only clears the directory when it restarts itself.
 * A socket of ours that still accepts a connection belongs to a plugin that runs (during a
 * rolling update, the old pod) and is left alone, as is everything without our prefix.
 */
final class StaleSockets {

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.plugin");
    private static final int S_IFMT = 0170000;
    private static final int S_IFSOCK = 0140000;

    private StaleSockets() {}

    /** Removes our dead sockets from {@code pluginDir}; returns their names. */
    static List<String> remove(Path pluginDir) {
        List<String> removed = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(pluginDir, SocketNames.PREFIX + "*" + SocketNames.SUFFIX)) {
            for (Path p : entries) {
                if (isSocket(p) && nobodyListens(p)) {
                    Files.deleteIfExists(p);
                    removed.add(p.getFileName().toString());
                    log.info("removed stale socket {} (left by an earlier run that did not shut down)", p.getFileName());
                }
            }
        } catch (IOException e) {
            log.warn("cannot clear stale sockets in {}: {}", pluginDir, e.toString());
        }
        return removed;
    }

    private static boolean isSocket(Path p) {
        try {
            return ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & S_IFMT) == S_IFSOCK;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean nobodyListens(Path socket) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(socket));
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
