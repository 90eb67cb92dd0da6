package io.vfiodp.host.scan;

import io.vfiodp.host.NumaTopology;
import io.vfiodp.host.Reading;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads {@link NumaTopology} below a sysfs root, never following a link out of it. A file that is
 * missing, unreadable or malformed leaves its fact out ({@link NumaTopology#localNodes} then
 * falls back to the node alone), as the kernel of a single-node machine shows no SLIT at all.
 */
public final class NumaTopologyReader {

    private static final String NODES = "devices/system/node";

    private final FactRoot sys;

    private NumaTopologyReader(Path sysRoot) {
        this.sys = FactRoot.open(sysRoot);
    }

    public static NumaTopology read(Path sysRoot) {
        return new NumaTopologyReader(sysRoot).read();
    }

    private NumaTopology read() {
        SortedMap<Integer, NumaTopology.Node> nodes = new TreeMap<>();
        if (!(sys.list(NODES) instanceof Reading.Found<String[]>(String[] names))) return NumaTopology.NONE;
        for (String name : names) {
            if (name.length() <= 4 || !name.startsWith("node") || !PciFunctionReader.isDigits(name, 4) || name.length() > 8) continue;
            int node = Integer.parseInt(name.substring(4));
            nodes.put(node, new NumaTopology.Node(distances(NODES + "/" + name + "/distance"), socket(NODES + "/" + name + "/cpulist")));
        }
        return new NumaTopology(nodes);
    }

    /** {@code 10 21} → [10, 21]; empty when unreadable or not all numbers. */
    private List<Integer> distances(String file) {
        if (!(sys.attribute(file) instanceof Reading.Found<String>(String row)) || row.isEmpty()) return List.of();
        List<Integer> out = new ArrayList<>();
        for (String d : row.split("\\s+")) {
            if (d.isEmpty() || d.length() > 3 || !PciFunctionReader.isDigits(d, 0)) return List.of();
            out.add(Integer.parseInt(d));
        }
        return out;
    }

    /** The socket of the first CPU of {@code cpulist} ({@code 0-15,32-47}); empty without CPUs. */
    private OptionalInt socket(String cpulist) {
        if (!(sys.attribute(cpulist) instanceof Reading.Found<String>(String cpus)) || cpus.isEmpty()) return OptionalInt.empty();
        int end = 0;
        while (end < cpus.length() && Character.isDigit(cpus.charAt(end))) end++;
        if (end == 0 || end > 6) return OptionalInt.empty();
        String pkg = "devices/system/cpu/cpu" + cpus.substring(0, end) + "/topology/physical_package_id";
        if (!(sys.attribute(pkg) instanceof Reading.Found<String>(String id)) || id.isEmpty() || id.length() > 6
                || !PciFunctionReader.isDigits(id, 0)) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(id));
    }
}
