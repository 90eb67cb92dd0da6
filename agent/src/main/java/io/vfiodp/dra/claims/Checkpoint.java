package io.vfiodp.dra.claims;

import io.vfiodp.dra.model.AttributeValue;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The prepared claims, kept in {@code <pluginDir>/checkpoint.json} so that a restart of the driver
 * or of the kubelet loses none and prepares none twice. Written whole to a temporary file, synced,
 * then renamed over the old one: a crash leaves the old or the new file, never half of one. An
 * extended-resource claim also keeps what each request's container gets ({@code extendedResources}),
 * so that a repeated prepare after a restart answers it identically without the API; a file
 * written before that field existed reads as ordinary claims.
 */
public final class Checkpoint {

    public static final String FILE = "checkpoint.json";
    private static final int VERSION = 1;

    private final Path file;
    private final String driver;

    public Checkpoint(Path pluginDir, String driver) {
        this.file = pluginDir.resolve(FILE);
        this.driver = driver;
    }

    public Path file() {
        return file;
    }

    /**
     * The claims recorded, by UID; none when there is no file yet.
     *
     * @throws IOException naming the file and what is wrong with it: starting without the claims it
     *                     records could hand a device in use to a second VM
     */
    public SortedMap<String, PreparedClaim> load() throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return new TreeMap<>();
        }
        try {
            JsonNode root = new JsonMapper().readTree(text);
            int version = root.path("version").asInt(-1);
            if (version != VERSION) throw new IOException("version " + root.path("version") + ", expected " + VERSION);
            String written = text(root, "driver");
            if (!written.equals(driver)) throw new IOException("written by driver " + written + ", this is " + driver);
            SortedMap<String, PreparedClaim> claims = new TreeMap<>();
            for (JsonNode c : root.path("claims")) {
                PreparedClaim claim = claim(c);
                claims.put(claim.uid(), claim);
            }
            return claims;
        } catch (JacksonException | IllegalArgumentException e) {
            throw new IOException("DRA checkpoint " + file + " is unreadable: " + e.getMessage()
                    + "; move it away to start without it (its claims are then prepared again when the kubelet asks)", e);
        } catch (IOException e) {
            throw new IOException("DRA checkpoint " + file + " is unreadable: " + e.getMessage()
                    + "; move it away to start without it (its claims are then prepared again when the kubelet asks)", e);
        }
    }

    public void save(Collection<PreparedClaim> claims) throws IOException {
        List<Object> list = new ArrayList<>();
        for (PreparedClaim c : claims) list.add(json(c));
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("version", (long) VERSION);
        root.put("driver", driver);
        root.put("claims", list);
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling("." + FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(StandardCharsets.UTF_8.encode(GoJson.indented(root) + "\n"));
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static Map<String, Object> json(PreparedClaim c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("uid", c.uid());
        m.put("namespace", c.namespace());
        m.put("name", c.name());
        c.podClaimName().ifPresent(p -> m.put("podClaimName", p));
        List<Object> devices = new ArrayList<>();
        for (PreparedDevice d : c.devices()) {
            Map<String, Object> dm = new LinkedHashMap<>();
            dm.put("request", d.request());
            dm.put("pool", d.pool());
            dm.put("device", d.device());
            dm.put("deviceId", d.deviceId());
            dm.put("vfioPaths", List.copyOf(d.vfioPaths()));
            Map<String, Object> attributes = new TreeMap<>();
            d.attributes().forEach((k, v) -> attributes.put(k, Map.of(v.field(), switch (v) {
                case AttributeValue.Text t -> t.value();
                case AttributeValue.Int n -> n.value();
                case AttributeValue.Bool b -> b.value();
            })));
            dm.put("attributes", attributes);
            devices.add(dm);
        }
        m.put("devices", devices);
        if (c.forExtendedResources()) {
            List<Object> requests = new ArrayList<>();
            for (RequestEdits r : c.extended()) {
                Map<String, Object> rm = new LinkedHashMap<>();
                rm.put("request", r.request());
                rm.put("env", new LinkedHashMap<String, Object>(r.env()));
                rm.put("deviceNodes", List.copyOf(r.deviceNodes()));
                requests.add(rm);
            }
            m.put("extendedResources", requests);
        }
        return m;
    }

    private static PreparedClaim claim(JsonNode c) throws IOException {
        List<PreparedDevice> devices = new ArrayList<>();
        for (JsonNode d : c.path("devices")) {
            List<String> paths = new ArrayList<>();
            for (JsonNode p : d.path("vfioPaths")) paths.add(p.asString());
            SortedMap<String, AttributeValue> attributes = new TreeMap<>();
            for (Map.Entry<String, JsonNode> a : d.path("attributes").properties()) attributes.put(a.getKey(), attribute(a.getKey(), a.getValue()));
            devices.add(new PreparedDevice(text(d, "request"), text(d, "pool"), text(d, "device"), text(d, "deviceId"), paths, attributes));
        }
        Optional<String> pod = c.has("podClaimName") ? Optional.of(text(c, "podClaimName")) : Optional.empty();
        List<RequestEdits> extended = new ArrayList<>();
        for (JsonNode r : c.path("extendedResources")) {
            Map<String, String> env = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> e : r.path("env").properties()) env.put(e.getKey(), text(r.path("env"), e.getKey()));
            List<String> nodes = new ArrayList<>();
            for (JsonNode p : r.path("deviceNodes")) nodes.add(p.asString());
            extended.add(new RequestEdits(text(r, "request"), env, nodes));
        }
        return new PreparedClaim(text(c, "uid"), text(c, "namespace"), text(c, "name"), pod, devices, extended);
    }

    private static AttributeValue attribute(String key, JsonNode v) throws IOException {
        if (v.has("string")) return new AttributeValue.Text(v.get("string").asString());
        if (v.has("int") && v.get("int").isIntegralNumber()) return new AttributeValue.Int(v.get("int").asLong());
        if (v.has("bool") && v.get("bool").isBoolean()) return new AttributeValue.Bool(v.get("bool").asBoolean());
        throw new IOException("attribute " + key + " has no string, int or bool value");
    }

    private static String text(JsonNode n, String field) throws IOException {
        JsonNode v = n.get(field);
        if (v == null || !v.isString()) throw new IOException("field '" + field + "' is missing or not a string");
        return v.asString();
    }
}
