package io.vfiodp.host;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How a PCI function can be reset between two VMs, as sysfs shows it. Since Linux 5.15
 * {@code reset_method} lists the methods in the order the kernel tries them ({@code flr bus});
 * it and the older {@code reset} file exist only for a function the kernel can reset at all.
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

    /** The reset support of each of {@code functions}, read from {@code sysRoot} without leaving it. */
    public static SortedMap<PciAddress, ResetSupport> read(Path sysRoot, Collection<PciAddress> functions) {
        FactRoot sys = FactRoot.open(sysRoot);
        SortedMap<PciAddress, ResetSupport> out = new TreeMap<>();
        for (PciAddress a : functions) {
            String dir = "bus/pci/devices/" + a;
            Reading<List<String>> methods = sys.attribute(dir + "/reset_method")
                    .map(v -> v.isEmpty() ? List.<String>of() : List.of(v.split("\\s+")));
            out.put(a, new ResetSupport(methods, sys.exists(dir + "/reset")));
        }
        return out;
    }
}
