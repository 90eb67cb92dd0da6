package io.vfiodp.host.scan;

import io.vfiodp.host.VgpuType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The content of a VF's {@code nvidia/creatable_vgpu_types}. The NVIDIA vGPU driver prints one
 * type per line as {@code 1414 : NVIDIA H200X-1-18C} (id, colon, name), some releases with an
 * {@code ID : vGPU Name} header; other tools print the reverse, {@code NVIDIA L40S-1Q   1147}.
 * Both are read; a first line that is neither is taken as a header.
 *
 * @param types    the types in file order, names with whitespace runs collapsed to one space
 * @param badLines lines after the first that could not be read as a type
 */
record CreatableVgpuTypes(List<VgpuType> types, List<String> badLines) {

    CreatableVgpuTypes {
        types = List.copyOf(types);
        badLines = List.copyOf(badLines);
    }

    static CreatableVgpuTypes parse(String text) {
        List<VgpuType> types = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        boolean first = true;
        // a lone CR ends a line too, as String.lines() has it: a file written by hand on another system stays readable
        for (String raw : text.lines().toList()) {
            String line = raw.strip();
            if (line.isEmpty()) continue;
            VgpuType type = parseLine(line);
            if (type != null) types.add(type);
            else if (!first) bad.add(line);
            first = false;
        }
        return new CreatableVgpuTypes(types, bad);
    }

    private static VgpuType parseLine(String line) {
        int colon = line.indexOf(':');
        if (colon >= 0) {
            int id = typeId(line.substring(0, colon).strip());
            String name = collapse(line.substring(colon + 1));
            return id > 0 && !name.isEmpty() ? new VgpuType(id, name) : null;
        }
        String[] tokens = line.split("\\s+");
        if (tokens.length < 2) return null;
        int leading = typeId(tokens[0]);
        int trailing = typeId(tokens[tokens.length - 1]);
        if (trailing > 0 && leading < 0) {
            return new VgpuType(trailing, String.join(" ", List.of(tokens).subList(0, tokens.length - 1)));
        }
        if (leading > 0 && trailing < 0) {
            return new VgpuType(leading, String.join(" ", List.of(tokens).subList(1, tokens.length)));
        }
        return null;
    }

    /** The id as a positive number, 0 for the "no type" value, -1 when not a number. */
    private static int typeId(String token) {
        if (token.isEmpty() || token.length() > 9) return -1;
        for (int i = 0; i < token.length(); i++) {
            if (token.charAt(i) < '0' || token.charAt(i) > '9') return -1;
        }
        return Integer.parseInt(token);
    }

    private static String collapse(String name) {
        return name.strip().replaceAll("\\s+", " ");
    }

    /** The name this list gives {@code id}, if it lists it. */
    Optional<String> nameOf(int id) {
        return types.stream().filter(t -> t.id() == id).map(VgpuType::name).findFirst();
    }
}
