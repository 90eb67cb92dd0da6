package io.vfiodp.plugin;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command in a mount namespace of its own, after a shell script of mount commands: how a
 * test gives {@code serve} a read-only or a full file system without touching the machine's
 * mounts (the namespace ends with the process). Tries, in order: a user and mount namespace
 * ({@code unshare -rm}, any user where the kernel allows it), a mount namespace as root
 * ({@code unshare -m}), and the same through {@code sudo -n}. Where none works, {@link #wrapper}
 * fails and says so: a test that needs it must not pass without it.
 */
final class PrivateMounts {

    private static final List<List<String>> METHODS = List.of(
            List.of("unshare", "-rm"),
            List.of("unshare", "-m"),
            List.of("sudo", "-n", "unshare", "-m"));

    private PrivateMounts() {}

    /** The command prefix that runs {@code script} (mount commands) in a new mount namespace, then execs what follows it. */
    static List<String> wrapper(String script) {
        List<String> tried = new ArrayList<>();
        for (List<String> method : METHODS) {
            String outcome = probe(method);
            if (outcome.isEmpty()) {
                List<String> w = new ArrayList<>(method);
                w.addAll(List.of("sh", "-c", "set -e; " + script + "; exec \"$@\"", "sh"));
                return w;
            }
            tried.add(String.join(" ", method) + ": " + outcome);
        }
        throw new AssertionError("this test needs a private mount namespace to make a read-only or full file system, and none is"
                + " available here; tried " + tried + ". Run it as root, or where unprivileged user namespaces are allowed.");
    }

    /** Empty when {@code method} can mount a tmpfs in a new namespace; otherwise why not. */
    private static String probe(List<String> method) {
        List<String> command = new ArrayList<>(method);
        command.addAll(List.of("sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=16k tmpfs \"$d\" && umount \"$d\" && rmdir \"$d\""));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "no answer within 10 s";
            }
            String out = new String(p.getInputStream().readAllBytes()).strip();
            return p.exitValue() == 0 ? "" : "exit " + p.exitValue() + (out.isEmpty() ? "" : " (" + out + ")");
        } catch (IOException e) {
            return e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
