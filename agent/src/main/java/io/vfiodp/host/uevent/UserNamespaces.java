package io.vfiodp.host.uevent;

import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLong;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether this process can receive kernel uevents at all: the kernel broadcasts them only to the
 * network namespaces owned by the initial user namespace (lib/kobject_uevent.c, "Restrict uevents
 * to initial user namespace", Linux 4.18). A netlink socket opens and binds in any other one too,
 * and then never receives anything, so this is asked before.
 */
final class UserNamespaces {

    /** ioctl on a namespace file: a descriptor of the user namespace that owns it (linux/nsfs.h). */
    static final long NS_GET_USERNS = 0xb701;
    private static final int O_RDONLY_CLOEXEC = 02000000;

    private UserNamespaces() {}

    /**
     * Why this process's network namespace receives no uevents, if it does not: it is owned by
     * the process's own user namespace, and that is not the initial one.
     */
    static Optional<String> whyNoUevents(UeventSocket.LibC libc, Path procSelf) {
        String uidMap;
        try {
            uidMap = Files.readString(procSelf.resolve("uid_map")).strip();
        } catch (IOException e) {
            return Optional.empty(); // no /proc to tell: try, and receive what comes
        }
        if (isInitialUidMap(uidMap)) return Optional.empty();
        Optional<String> owner = netnsOwner(libc, procSelf);
        String own;
        try {
            own = Files.readSymbolicLink(procSelf.resolve("ns/user")).toString();
        } catch (IOException e) {
            return Optional.empty();
        }
        if (owner.isPresent() && !owner.get().equals(own)) return Optional.empty();
        return Optional.of("this process runs in a user namespace (uid_map '" + uidMap.replaceAll("\\s+", " ")
                + "') that owns its network namespace; the kernel sends uevents only to network namespaces of the"
                + " initial user namespace (run the pod with hostUsers: true)");
    }

    /** {@code 0 0 4294967295}: the initial user namespace maps every id to itself. */
    static boolean isInitialUidMap(String uidMap) {
        String[] lines = uidMap.strip().split("\n");
        if (lines.length != 1) return false;
        String[] f = lines[0].trim().split("\\s+");
        return f.length == 3 && f[0].equals("0") && f[1].equals("0") && f[2].equals("4294967295");
    }

    /** The link text ({@code user:[N]}) of the user namespace owning this network namespace, when the kernel says. */
    private static Optional<String> netnsOwner(UeventSocket.LibC libc, Path procSelf) {
        int ns;
        try {
            ns = libc.open(procSelf.resolve("ns/net").toString(), O_RDONLY_CLOEXEC);
        } catch (LastErrorException e) {
            return Optional.empty();
        }
        try {
            int owner = libc.ioctl(ns, new NativeLong(NS_GET_USERNS), new NativeLong(0));
            try {
                return Optional.of(Files.readSymbolicLink(procSelf.resolve("fd/" + owner)).toString());
            } catch (IOException e) {
                return Optional.empty();
            } finally {
                close(libc, owner);
            }
        } catch (LastErrorException e) {
            return Optional.empty();
        } finally {
            close(libc, ns);
        }
    }

    private static void close(UeventSocket.LibC libc, int fd) {
        try {
            libc.close(fd);
        } catch (LastErrorException e) {
            // a namespace descriptor only read from
        }
    }
}
