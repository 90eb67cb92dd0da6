package io.vfiodp.host;

import java.util.List;
import java.util.Objects;

/**
 * How a PCI function can be reset between two VMs, as sysfs shows it. Since Linux 5.15
 * {@code reset_method} lists the methods in the order the kernel tries them ({@code flr bus});
 * it and the older {@code reset} file exist only for a function the kernel can reset at all
 * ({@code host.scan}'s {@code ResetSupportReader} reads them).
 *
 * @param methods   {@code reset_method}, split on blanks; absent on a kernel before 5.15 or for a
 *                  function without any method; empty when an administrator disabled them all
 * @param resetFile whether {@code reset} exists
 */
public record ResetSupport(Reading<List<String>> methods, Reading<Boolean> resetFile) {

    public ResetSupport {
        Objects.requireNonNull(methods, "methods");
        Objects.requireNonNull(resetFile, "resetFile");
    }
}
