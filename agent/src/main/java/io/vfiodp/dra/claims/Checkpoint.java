package io.vfiodp.dra.claims;

import io.vfiodp.dra.model.AttributeValue;
import io.vfiodp.state.AtomicFile;
import io.vfiodp.state.JsonShape;
import io.vfiodp.state.StateEnvelope;
import io.vfiodp.state.StateReading;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The prepared claims, kept in {@code <pluginDir>/checkpoint.json} so that a restart of the driver
 * or of the kubelet loses none and prepares none twice: a {@link StateEnvelope state file} (kind
 * {@value #KIND}, version {@value #VERSION}, checksummed) written through {@link AtomicFile}. An
 * extended-resource claim also keeps what each request's container gets ({@code extendedResources}),
 * so that a repeated prepare after a restart answers it identically without the API.
 *
 * <p>Read strictly: every field of the type written, none unknown, no claim twice and no device
 * recorded for two claims. A file that fails, is empty or unreadable is {@link Lost}, as is a
 * missing one while files of prepared claims are still on the host: the claims it held are not
 * known, and that is never read as "no claim". The version-1 file of earlier releases (no
 * envelope, no checksum) is read in exactly the shape they wrote; the next save writes version 2.
 */
public final class Checkpoint {

    public static final String FILE = "checkpoint.json";
    static final String KIND = "vfio-device-plugin/dra-checkpoint";
    static final int VERSION = 2;
    private static final int LEGACY_VERSION = 1;

    private final Path file;
    private final String driver;

    public Checkpoint(Path pluginDir, String driver) {
        this.file = pluginDir.resolve(FILE);
        this.driver = driver;
    }

    public Path file() {
        return file;
    }

    /** What a load gave. */
    public sealed interface Reading {}

    /** The claims recorded, by UID. */
    public record Loaded(SortedMap<String, PreparedClaim> claims) implements Reading {
        public Loaded {
            claims = Collections.unmodifiableSortedMap(new TreeMap<>(claims));
        }
    }

    /**
     * The record cannot be trusted to hold every claim: {@code reason} says why, naming the file;
     * {@code known} is what it does hold (a checkpoint saved while an earlier loss was not made good
     * yet), none when it could not be read.
     */
    public record Lost(String reason, SortedMap<String, PreparedClaim> known) implements Reading {
        public Lost {
            Objects.requireNonNull(reason, "reason");
            known = Collections.unmodifiableSortedMap(new TreeMap<>(known));
        }

        public Lost(String reason) {
            this(reason, new TreeMap<>());
        }
    }

    /**
     * The claims recorded. No file is no claim, unless {@code files} shows that claims were
     * prepared here (their CDI specs or metadata are on the host): then the record is lost.
     * Never throws.
     */
    public Reading load(ClaimFiles files) {
        try {
            return switch (StateEnvelope.read(file, KIND, Set.of(VERSION))) {
                case StateReading.Found f -> {
                    JsonShape.object(f.content(), "content", Set.of("driver", "claims"), Set.of("incomplete"));
                    Loaded loaded = claims(f.content(), "content");
                    Optional<String> incomplete = JsonShape.optionalText(f.content(), "incomplete", "content");
                    yield incomplete.<Reading>map(why -> new Lost(why, loaded.claims())).orElse(loaded);
                }
                case StateReading.Legacy l -> {
                    JsonShape.object(l.root(), "", Set.of("version", "driver", "claims"), Set.of());
                    long version = JsonShape.integer(l.root(), "version", "");
                    if (version != LEGACY_VERSION) throw new IOException("version " + version + " without a kind and checksum: not what the agent writes");
                    yield claims(l.root(), "");
                }
                case StateReading.Lost l -> new Lost("DRA checkpoint " + l.reason());
                case StateReading.Missing m -> files.anyOnHost()
                        .<Reading>map(left -> new Lost("DRA checkpoint " + file + " is missing, but claims were prepared here (" + left + ")"))
                        .orElse(new Loaded(new TreeMap<>()));
            };
        } catch (IOException | IllegalArgumentException e) {
            return new Lost("DRA checkpoint " + file + ": " + e.getMessage());
        }
    }

    /**
     * Records exactly {@code claims}, replacing what was recorded.
     *
     * @throws IOException naming the file and why it cannot be written
     */
    public void save(Collection<PreparedClaim> claims) throws IOException {
        save(claims, Optional.empty());
    }

    /**
     * As {@link #save(Collection)}; {@code incomplete} says why {@code claims} may not be every
     * claim the kubelet has prepared: a load then gives {@link Lost} with it.
     */
    public void save(Collection<PreparedClaim> claims, Optional<String> incomplete) throws IOException {
        ObjectNode content = StateEnvelope.json().createObjectNode();
        content.put("driver", driver);
        incomplete.ifPresent(why -> content.put("incomplete", why));
        ArrayNode list = content.putArray("claims");
        for (PreparedClaim c : claims) list.add(json(c));
        Files.createDirectories(file.getParent());
        AtomicFile.write(file, StateEnvelope.render(KIND, VERSION, content), AtomicFile.OWNER_ONLY);
    }

    private Loaded claims(JsonNode root, String at) throws IOException {
        String written = JsonShape.text(root, "driver", at);
        if (!written.equals(driver)) throw new IOException("written by driver " + written + ", this is " + driver);
        SortedMap<String, PreparedClaim> claims = new TreeMap<>();
        Map<String, String> holders = new HashMap<>();
        List<JsonNode> list = JsonShape.array(root, "claims", at);
        for (int i = 0; i < list.size(); i++) {
            String where = JsonShape.path(at, "claims") + "[" + i + "]";
            PreparedClaim claim = claim(list.get(i), where);
            if (claims.put(claim.uid(), claim) != null) throw new IOException(where + ": claim UID " + claim.uid() + " is recorded twice");
            for (PreparedDevice d : claim.devices()) {
                String other = holders.put(d.pool() + "/" + d.device(), claim.uid());
                if (other != null && !other.equals(claim.uid())) {
                    throw new IOException(where + ": device " + d.device() + " is recorded for claims " + other + " and " + claim.uid());
                }
            }
        }
        return new Loaded(claims);
    }

    private static ObjectNode json(PreparedClaim c) {
        ObjectNode m = StateEnvelope.json().createObjectNode();
        m.put("uid", c.uid());
        m.put("namespace", c.namespace());
        m.put("name", c.name());
        c.podClaimName().ifPresent(p -> m.put("podClaimName", p));
        ArrayNode devices = m.putArray("devices");
        for (PreparedDevice d : c.devices()) {
            ObjectNode dm = devices.addObject();
            dm.put("request", d.request());
            dm.put("pool", d.pool());
            dm.put("device", d.device());
            dm.put("deviceId", d.deviceId());
            ArrayNode paths = dm.putArray("vfioPaths");
            d.vfioPaths().forEach(paths::add);
            ObjectNode attributes = dm.putObject("attributes");
            d.attributes().forEach((k, v) -> {
                ObjectNode value = attributes.putObject(k);
                switch (v) {
                    case AttributeValue.Text t -> value.put("string", t.value());
                    case AttributeValue.Int n -> value.put("int", n.value());
                    case AttributeValue.Bool b -> value.put("bool", b.value());
                    case AttributeValue.Ints l -> l.values().forEach(value.putArray("ints")::add);
                }
            });
        }
        if (c.forExtendedResources()) {
            ArrayNode requests = m.putArray("extendedResources");
            for (RequestEdits r : c.extended()) {
                ObjectNode rm = requests.addObject();
                rm.put("request", r.request());
                ObjectNode env = rm.putObject("env");
                r.env().forEach(env::put);
                ArrayNode nodes = rm.putArray("deviceNodes");
                r.deviceNodes().forEach(nodes::add);
            }
        }
        return m;
    }

    private static PreparedClaim claim(JsonNode c, String at) throws IOException {
        JsonShape.object(c, at, Set.of("uid", "namespace", "name", "devices"), Set.of("podClaimName", "extendedResources"));
        List<JsonNode> deviceList = JsonShape.array(c, "devices", at);
        if (deviceList.isEmpty()) throw new IOException(JsonShape.path(at, "devices") + ": a prepared claim holds at least one device");
        List<PreparedDevice> devices = new ArrayList<>();
        for (int i = 0; i < deviceList.size(); i++) devices.add(device(deviceList.get(i), JsonShape.path(at, "devices") + "[" + i + "]"));
        List<RequestEdits> extended = new ArrayList<>();
        if (c.has("extendedResources")) {
            List<JsonNode> requests = JsonShape.array(c, "extendedResources", at);
            for (int i = 0; i < requests.size(); i++) {
                String where = JsonShape.path(at, "extendedResources") + "[" + i + "]";
                JsonNode r = JsonShape.object(requests.get(i), where, Set.of("request", "env", "deviceNodes"), Set.of());
                JsonNode envNode = r.get("env");
                if (!envNode.isObject()) throw new IOException(JsonShape.path(where, "env") + ": expected an object");
                Map<String, String> env = new LinkedHashMap<>();
                for (String name : envNode.propertyNames()) env.put(name, JsonShape.text(envNode, name, JsonShape.path(where, "env")));
                extended.add(new RequestEdits(JsonShape.text(r, "request", where), env, JsonShape.texts(r, "deviceNodes", where)));
            }
        }
        return new PreparedClaim(nonEmpty(c, "uid", at), nonEmpty(c, "namespace", at), nonEmpty(c, "name", at),
                JsonShape.optionalText(c, "podClaimName", at), devices, extended);
    }

    private static PreparedDevice device(JsonNode d, String at) throws IOException {
        JsonShape.object(d, at, Set.of("request", "pool", "device", "deviceId", "vfioPaths", "attributes"), Set.of());
        JsonNode attributesNode = d.get("attributes");
        if (!attributesNode.isObject()) throw new IOException(JsonShape.path(at, "attributes") + ": expected an object");
        SortedMap<String, AttributeValue> attributes = new TreeMap<>();
        for (String key : attributesNode.propertyNames()) {
            attributes.put(key, attribute(attributesNode.get(key), JsonShape.path(JsonShape.path(at, "attributes"), key)));
        }
        return new PreparedDevice(nonEmpty(d, "request", at), nonEmpty(d, "pool", at), nonEmpty(d, "device", at), nonEmpty(d, "deviceId", at),
                JsonShape.texts(d, "vfioPaths", at), attributes);
    }

    private static AttributeValue attribute(JsonNode v, String at) throws IOException {
        if (v == null || !v.isObject() || v.size() != 1) throw new IOException(at + ": expected one of string, int, bool or ints");
        if (v.has("string")) return new AttributeValue.Text(JsonShape.text(v, "string", at));
        if (v.has("int")) return new AttributeValue.Int(JsonShape.integer(v, "int", at));
        if (v.has("bool") && v.get("bool").isBoolean()) return new AttributeValue.Bool(v.get("bool").asBoolean());
        if (v.has("ints")) {
            JsonNode list = v.get("ints");
            if (!list.isArray() || list.isEmpty()) throw new IOException(JsonShape.path(at, "ints") + ": expected a non-empty array of integers");
            List<Long> values = new ArrayList<>();
            for (JsonNode n : list) {
                if (!n.isIntegralNumber()) throw new IOException(JsonShape.path(at, "ints") + ": expected integers only");
                values.add(n.asLong());
            }
            return new AttributeValue.Ints(values);
        }
        throw new IOException(at + ": expected one of string, int, bool or ints");
    }

    private static String nonEmpty(JsonNode n, String field, String at) throws IOException {
        String v = JsonShape.text(n, field, at);
        if (v.isEmpty()) throw new IOException(JsonShape.path(at, field) + ": empty");
        return v;
    }
}
