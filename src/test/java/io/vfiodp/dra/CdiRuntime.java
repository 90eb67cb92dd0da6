package io.vfiodp.dra;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A container runtime's CDI side, as the CDI library (cncf-tags/container-device-interface) does it:
 * reads every {@code .json} spec in the CDI directory (names starting with a dot are not specs),
 * checks kind and device names by the library's rules, resolves the fully qualified device names the
 * kubelet passes ({@code vendor/class=name}) and collects their container edits: the device nodes
 * the container gets and the files bind-mounted into it, which {@link #mountInto} then performs.
 */
final class CdiRuntime {

    private static final Pattern VENDOR = Pattern.compile("[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?");
    private static final Pattern CLASS = Pattern.compile("[A-Za-z]([A-Za-z0-9_-]*[A-Za-z0-9])?");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?");

    record DeviceNode(String path, String hostPath, String permissions) {}

    record Mount(String hostPath, String containerPath, List<String> options) {}

    record Edits(List<DeviceNode> deviceNodes, List<Mount> mounts) {}

    private final Map<String, JsonNode> devices = new HashMap<>();

    /** Loads the specs of {@code cdiDir}; a malformed spec fails as the library refuses it. */
    CdiRuntime(Path cdiDir) throws IOException {
        if (!Files.isDirectory(cdiDir)) return;
        try (DirectoryStream<Path> specs = Files.newDirectoryStream(cdiDir, "*.json")) {
            for (Path p : specs) {
                if (p.getFileName().toString().startsWith(".")) continue;
                JsonNode spec = new JsonMapper().readTree(Files.readString(p));
                String version = spec.path("cdiVersion").asString("");
                if (!version.equals("0.5.0")) throw new IOException(p + ": cdiVersion " + version + ", these specs are written as 0.5.0");
                String kind = spec.path("kind").asString("");
                int slash = kind.indexOf('/');
                if (slash < 0 || !VENDOR.matcher(kind.substring(0, slash)).matches() || !CLASS.matcher(kind.substring(slash + 1)).matches()) {
                    throw new IOException(p + ": invalid kind " + kind);
                }
                if (spec.path("devices").isEmpty()) throw new IOException(p + ": no devices");
                for (JsonNode d : spec.path("devices")) {
                    String name = d.path("name").asString("");
                    if (!NAME.matcher(name).matches()) throw new IOException(p + ": invalid device name " + name);
                    if (devices.put(kind + "=" + name, d) != null) throw new IOException(p + ": device " + kind + "=" + name + " defined twice");
                }
            }
        }
    }

    /** The edits of the named devices together; an unknown name fails, as the runtime fails the container. */
    Edits edits(List<String> qualifiedNames) {
        Map<String, DeviceNode> nodes = new LinkedHashMap<>();
        List<Mount> mounts = new ArrayList<>();
        for (String q : qualifiedNames) {
            JsonNode d = devices.get(q);
            if (d == null) throw new IllegalStateException("unresolvable CDI device " + q);
            JsonNode edits = d.path("containerEdits");
            for (JsonNode n : edits.path("deviceNodes")) {
                String path = n.path("path").asString();
                // the library replaces a node of the same path rather than adding it twice
                nodes.put(path, new DeviceNode(path, n.path("hostPath").asString(path), n.path("permissions").asString("")));
            }
            for (JsonNode m : edits.path("mounts")) {
                List<String> options = new ArrayList<>();
                m.path("options").forEach(o -> options.add(o.asString()));
                mounts.add(new Mount(m.path("hostPath").asString(), m.path("containerPath").asString(), options));
            }
        }
        return new Edits(List.copyOf(nodes.values()), mounts);
    }

    /** Performs the bind mounts into a directory that plays the container's root. */
    static void mountInto(Path containerRoot, Edits edits) throws IOException {
        for (Mount m : edits.mounts()) {
            Path target = containerRoot.resolve(m.containerPath().substring(1));
            Files.createDirectories(target.getParent());
            Files.copy(Path.of(m.hostPath()), target);
        }
    }
}
