package io.vfiodp.host.libc;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** Binds an interface of libc calls through JNA, the same way for every caller (the uevent socket, the VFIO check). */
public final class NativeLibC {

    private NativeLibC() {}

    /**
     * glibc by its soname, which the dynamic linker finds by itself, else by the short name. Unless
     * told its search path, JNA works it out by running {@code ldconfig -p} when it first loads a
     * library: a child process and a reaper thread at every start, for a lookup that needs neither.
     *
     * @throws UnsatisfiedLinkError when there is no libc to bind
     */
    public static <T extends Library> T load(Class<T> calls) {
        if (System.getProperty("jna.platform.library.path") == null) {
            System.setProperty("jna.platform.library.path", "");
        }
        try {
            return Native.load("libc.so.6", calls);
        } catch (UnsatisfiedLinkError notGlibc) {
            return Native.load("c", calls);
        }
    }
}
