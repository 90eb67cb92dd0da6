package io.vfiodp.checkout;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The top of the checkout, where the aggregator pom.xml, the shipped files (deploy/, charts/, the Dockerfile, the
 * docs) and every module's directory lie. A module's tests run in the module's own directory (Maven's basedir), and a
 * benchmark from wherever it is started: both find the top by going up to the directory that holds {@code .mvn/}.
 */
public final class Checkout {

    private Checkout() {}

    /** The top of the checkout above Maven's {@code basedir}, or above the working directory when none is set. */
    public static Path root() {
        Path start = Path.of(System.getProperty("basedir", "")).toAbsolutePath().normalize();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve(".mvn")) && Files.isRegularFile(dir.resolve("pom.xml"))) return dir;
        }
        throw new IllegalStateException("no checkout above " + start + ": no directory holds .mvn/ and pom.xml");
    }

    /** {@code first/more...} below the top of the checkout. */
    public static Path path(String first, String... more) {
        return root().resolve(Path.of(first, more));
    }
}
