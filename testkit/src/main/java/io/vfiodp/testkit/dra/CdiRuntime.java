package io.vfiodp.testkit.dra;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A container runtime's CDI side, as the CDI library (cncf-tags/container-device-interface) and the
 * OCI runtime-tools generator it calls do it: reads every {@code .json} spec in the CDI directory
 * (names starting with a dot are not specs), checks kind and device names by the library's rules,
 * resolves the fully qualified device names the kubelet passes ({@code vendor/class=name}) and
 * applies their container edits in that order: env variables (one set again replaces the earlier
 * value, so the last device wins), device nodes (one of the same path replaces the earlier one)
 * and bind mounts, which {@link #mountInto} then performs in a directory that plays the container.
 */
public final class CdiRuntime {

    private static final Pattern VENDOR = Pattern.compile("[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?");
    private static final Pattern CLASS = Pattern.compile("[A-Za-z]([A-Za-z0-9_-]*[A-Za-z0-9])?");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?");
    /** The spec versions the library reads ({@code specs-go/config.go}). */
    private static final List<String> VERSIONS = List.of("0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0");

    public record DeviceNode(String path, String hostPath, String permissions) {}

    public record Mount(String hostPath, String containerPath, List<String> options) {
        public Mount {
            options = List.copyOf(options);
        }
    }

    /**
     * What a container gets from its CDI devices.
     *
     * @param env         variable → value, in the order the variables were first set
     * @param overwritten each variable a later device set again, as {@code NAME: earlier -> later}: what a
     *                    runtime silently loses, so that a test sees it
     */
    public record Edits(Map<String, String> env, List<DeviceNode> deviceNodes, List<Mount> mounts, List<String> overwritten) {
        public Edits {
            env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
            deviceNodes = List.copyOf(deviceNodes);
            mounts = List.copyOf(mounts);
            overwritten = List.copyOf(overwritten);
        }

        /** The host paths of the device nodes, in order. */
        public List<String> hostPaths() {
            return deviceNodes.stream().map(DeviceNode::hostPath).toList();
        }
    }

    private final Map<String, JsonNode> devices = new HashMap<>();

    /** Loads the specs of {@code cdiDir}; a malformed spec fails as the library refuses it. */
    public CdiRuntime(Path cdiDir) throws IOException {
        if (!Files.isDirectory(cdiDir)) return;
        JsonMapper json = new JsonMapper();
        try (DirectoryStream<Path> specs = Files.newDirectoryStream(cdiDir, "*.json")) {
            for (Path p : specs) {
                if (p.getFileName().toString().startsWith(".")) continue;
                JsonNode spec = json.readTree(Files.readString(p));
                String version = spec.path("cdiVersion").asString("");
                if (!VERSIONS.contains(version)) throw new IOException(p + ": cdiVersion '" + version + "' is not one the CDI library reads");
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

    /** The edits of the named devices applied in order; an unknown name fails, as the runtime fails the container. */
    public Edits edits(List<String> qualifiedNames) {
        Map<String, String> env = new LinkedHashMap<>();
        List<String> overwritten = new ArrayList<>();
        Map<String, DeviceNode> nodes = new LinkedHashMap<>();
        List<Mount> mounts = new ArrayList<>();
        for (String q : qualifiedNames) {
            JsonNode d = devices.get(q);
            if (d == null) throw new IllegalStateException("unresolvable CDI device " + q);
            JsonNode edits = d.path("containerEdits");
            for (JsonNode e : edits.path("env")) {
                String entry = e.asString();
                int eq = entry.indexOf('=');
                String name = eq < 0 ? entry : entry.substring(0, eq);
                String value = eq < 0 ? "" : entry.substring(eq + 1);
                String earlier = env.put(name, value);
                if (earlier != null) overwritten.add(name + ": " + earlier + " -> " + value);
            }
            for (JsonNode n : edits.path("deviceNodes")) {
                String path = n.path("path").asString();
                nodes.put(path, new DeviceNode(path, n.path("hostPath").asString(path), n.path("permissions").asString("")));
            }
            for (JsonNode m : edits.path("mounts")) {
                List<String> options = new ArrayList<>();
                m.path("options").forEach(o -> options.add(o.asString()));
                mounts.add(new Mount(m.path("hostPath").asString(), m.path("containerPath").asString(), options));
            }
        }
        return new Edits(env, List.copyOf(nodes.values()), mounts, overwritten);
    }

    /** Performs the bind mounts into a directory that plays the container's root (by copying the files). */
    public static void mountInto(Path containerRoot, Edits edits) throws IOException {
        for (Mount m : edits.mounts()) {
            Path target = containerRoot.resolve(m.containerPath().substring(1));
            Files.createDirectories(target.getParent());
            Files.copy(Path.of(m.hostPath()), target);
        }
    }
}
