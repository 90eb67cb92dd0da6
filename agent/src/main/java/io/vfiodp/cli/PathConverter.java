package io.vfiodp.cli;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Path options' converter: what picocli's built-in one does, {@code Paths.get(value)}, called
 * directly. picocli calls it through {@code Method.invoke}, whose first call spins method handles
 * in the interpreter, on serve's start-up path (docs/benchmarks.md, "Choices in the code"). A path it refuses is
 * reported in picocli's words.
 */
final class PathConverter implements ITypeConverter<Path> {

    @Override
    public Path convert(String value) {
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new TypeConversionException(String.format("cannot convert '%s' to %s (%s)", value, Path.class, e));
        }
    }
}
