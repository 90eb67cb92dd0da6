package io.vfiodp.kernel;

import io.vfiodp.checkout.Checkout;
import java.util.Locale;

/**
 * Boot time of the real-kernel tests' guest and uevent timing on its kernel (TCG, so slower than
 * hardware): boots the guest as the tests do, prints how long QEMU took until the command channel
 * answered, then runs {@code io.vfiodp.kernel.guest.BindLatency} on the edu device and prints its
 * figures. Needs what the tests need (docs/development.md, "Real-kernel tests") and {@code image/target/image}.
 *
 * <p>Arguments: {@code [cycles]}, default 50.
 */
public final class RealKernelLatencyBench {

    private RealKernelLatencyBench() {}

    public static void main(String[] args) throws Exception {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        GuestImage image = GuestImage.build(Checkout.path("bench/target/kernel-testbed"));
        System.out.println("kernel: " + image.kernelPackage() + "; modules: " + String.join(" ", image.modules()));
        try (Guest guest = Guest.boot(image)) {
            System.out.printf(Locale.ROOT, "boot: QEMU start to the guest's command channel: %.1f s%n", guest.bootTime().toMillis() / 1e3);
            String group = GuestHosts.sysfs(guest).get(Guest.EDU).group();
            System.out.print(guest.ok(guest.java("io.vfiodp.kernel.guest.BindLatency", Guest.EDU, group, Integer.toString(cycles))
                    + " 2>/dev/null"));
        }
    }
}
