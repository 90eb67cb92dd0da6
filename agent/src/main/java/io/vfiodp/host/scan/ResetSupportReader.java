package io.vfiodp.host.scan;

import io.vfiodp.host.PciAddress;
import io.vfiodp.host.Reading;
import io.vfiodp.host.ResetSupport;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/** Reads each function's {@link ResetSupport} from {@code bus/pci/devices/<address>}, never leaving the sysfs root. */
public final class ResetSupportReader {

    private ResetSupportReader() {}

    /** The reset support of each of {@code functions}, read from {@code sysRoot}. */
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
