package io.vfiodp.deploy;

import io.vfiodp.checkout.Checkout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The shipped JVM flags as the launcher reads them from image/src/main/image/jvm.options, for tests and benches. */
public final class ShippedJvmFlags {

    public static final Path JVM_OPTIONS = Checkout.path("image/src/main/image/jvm.options");

    private ShippedJvmFlags() {
    }

    /** One flag per line, {@code #} comments and blank lines left out. */
    public static List<String> read() {
        try {
            return Files.readAllLines(JVM_OPTIONS).stream().map(l -> l.replaceFirst("#.*", "").strip()).filter(l -> !l.isEmpty()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the shipped JVM flags from " + JVM_OPTIONS, e);
        }
    }
}
