package io.vfiodp.kernel;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives real-kernel test classes the {@link GuestImage}, built once per test run and kept in
 * JUnit's root store (the initramfs is a few hundred MB: it is deleted with the store), and a
 * {@link Guest} booted from it with the IOMMU on, shared by the classes of the run: every class
 * asks the same machine of it, and a boot is a good part of a class' time. Each class gets the
 * guest put back as it booted ({@link Guest#resetToBoot}), or a fresh one where that cannot be
 * done; the last one is shut down when the run ends. A class that needs another kernel command
 * line boots its own ({@link Guest#boot(GuestImage, String)}).
 */
public final class KernelTestBed implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KernelTestBed.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == GuestImage.class || type == Guest.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        GuestImage image = image(context);
        if (parameter.getParameter().getType() == GuestImage.class) return image;
        try {
            return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Shared.class, k -> new Shared(), Shared.class).take(image);
        } catch (IOException e) {
            throw new IllegalStateException("real-kernel tests: no guest: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("real-kernel tests: interrupted while getting the guest", e);
        }
    }

    private static GuestImage image(ExtensionContext context) {
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

    /** The shared guest: the test classes run one after the other, each takes it in its {@code @BeforeAll}. */
    private static final class Shared implements AutoCloseable {
        private Guest guest;

        synchronized Guest take(GuestImage image) throws IOException, InterruptedException {
            if (guest != null && !reset()) {
                try {
                    guest.close();
                } catch (IOException e) {
                    System.out.println("real kernel: the shared guest did not shut down cleanly: " + e.getMessage());
                }
                guest = null;
            }
            if (guest == null) guest = Guest.boot(image);
            return guest;
        }

        private boolean reset() throws InterruptedException {
            try {
                return guest.resetToBoot();
            } catch (IOException e) {
                System.out.println("real kernel: the shared guest did not answer its reset: " + e.getMessage() + "; booting another");
                return false;
            }
        }

        @Override
        public synchronized void close() throws Exception {
            if (guest != null) guest.close();
        }
    }
}
