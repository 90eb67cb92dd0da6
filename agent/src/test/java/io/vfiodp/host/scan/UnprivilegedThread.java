package io.vfiodp.host.scan;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs work on a fresh thread that file permissions apply to. Tests here run as root, which
 * reads a {@code chmod 000} file anyway (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH). Linux keeps
 * capabilities per thread, so the thread drops those two from its effective set before the
 * work and ends after it: the rest of the JVM keeps them, and a denied file is denied for
 * the work as it would be for a plugin running unprivileged.
 */
public final class UnprivilegedThread {

    private static final int LINUX_CAPABILITY_VERSION_3 = 0x20080522;
    private static final int CAP_DAC_OVERRIDE = 1;
    private static final int CAP_DAC_READ_SEARCH = 2;

    interface LibC extends Library {
        int capget(int[] header, int[] data) throws LastErrorException;

        int capset(int[] header, int[] data) throws LastErrorException;
    }

    private UnprivilegedThread() {}

    /**
     * {@code work}'s result; its exception rethrown as is. A thread still busy after
     * {@code hangGuard} is a hang: it is interrupted and an {@link AssertionError} thrown.
     */
    public static <T> T call(Callable<T> work, Duration hangGuard) throws Exception {
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                dropDacOverride();
                result.set(work.call());
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "unprivileged-work");
        thread.start();
        thread.join(hangGuard.toMillis());
        if (thread.isAlive()) {
            thread.interrupt();
            throw new AssertionError("still running after " + hangGuard + " (hang guard)");
        }
        Throwable t = failure.get();
        if (t instanceof Exception e) throw e;
        if (t instanceof Error e) throw e;
        return result.get();
    }

    private static void dropDacOverride() {
        LibC libc = Native.load("c", LibC.class);
        int[] header = {LINUX_CAPABILITY_VERSION_3, 0};
        int[] data = new int[6]; // two {effective, permitted, inheritable} words
        libc.capget(header, data);
        data[0] &= ~(1 << CAP_DAC_OVERRIDE | 1 << CAP_DAC_READ_SEARCH);
        libc.capset(header, data);
    }
}
