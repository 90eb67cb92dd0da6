package io.vfiodp.kernel;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives real-kernel test classes the {@link GuestImage}, built once per test run and kept in
 * JUnit's root store (the initramfs is a few hundred MB: it is deleted with the store).
 */
public final class KernelTestBed implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KernelTestBed.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == GuestImage.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Built.class, k -> {
            try {
                return new Built(GuestImage.build(Path.of("target/kernel-testbed").toAbsolutePath()));
            } catch (Exception e) {
                throw new IllegalStateException("real-kernel tests: cannot build the guest image: " + e.getMessage(), e);
            }
        }, Built.class).image();
    }

    /** The image, and its initramfs deleted when the run ends. */
    private record Built(GuestImage image) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            java.nio.file.Files.deleteIfExists(image.initramfs());
        }
    }
}
