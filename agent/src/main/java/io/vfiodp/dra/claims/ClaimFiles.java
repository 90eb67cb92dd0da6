package io.vfiodp.dra.claims;

import io.vfiodp.dra.model.AttributeValue;
import io.vfiodp.state.AtomicFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The files a prepared claim puts on the host, and their CDI device IDs.
 *
 * <p>VFIO: one CDI spec per claim, {@code <cdiDir>/<driver>_vfio_<claimUID>.json} (kind
 * {@code <driver>/vfio}), with a CDI device {@code <claimUID>-<device>} per prepared device listing
 * exactly the device nodes it needs. The claim UID in the name keeps a runtime's cached spec from
 * matching a later claim.
 *
 * <p>Device metadata (KEP-5304), as Kubernetes 1.36's kubeletplugin helper writes it
 * ({@code kubeletplugin/metadata.go}): per request a file
 * {@code <pluginDir>/dra-device-metadata/<ns>_<claim>_<claimUID>/<request>/metadata.json} holding a
 * {@code metadata.resource.k8s.io/v1alpha1} {@code DeviceMetadata}, and a CDI spec
 * {@code <cdiDir>/<driver>_metadata_<claimUID>_<request>.json} (kind {@code <driver>/metadata},
 * device {@code <claimUID>_<request>}, cdiVersion 0.5.0) that bind-mounts it read-only at
 * {@code /var/run/kubernetes.io/dra-device-attributes/resourceclaims/<claim>/<request>/<driver>-metadata.json},
 * or {@code .../resourceclaimtemplates/<podClaimName>/...} for a claim made from a template:
 * where KubeVirt's virt-launcher looks. Every host path and CDI name a claim owns carries its UID
 * (the helper's {@code <ns>_<claim>} directory does not): a claim deleted and made again under
 * the same name, prepared before the old one is unprepared, never shares a file with it. Releases
 * before this one wrote metadata under {@code <ns>_<claim>}; unpreparing a claim removes that
 * directory too when its metadata names the claim's UID.
 *
 * <p>Extended resources (KEP-5004): the scheduler's claim for a pod's extended resources gets, in
 * the same VFIO spec, one CDI device per request, {@code <claimUID>-<request>}, holding the env
 * variables and device nodes Allocate would give ({@link RequestEdits}), and no metadata: a
 * virt-launcher asking {@code gpus[].deviceName} reads the variables. The kubelet hands a container
 * the CDI IDs of every device of each request it was mapped to, so the ID goes on the request's
 * first device only: the container gets each variable once, however many devices it asked for.
 *
 * <p>Every file is written through {@link AtomicFile} (a link planted at a temporary name is never
 * followed); a directory found in a file's place is removed first, so that a prepare repeated
 * after a restart restores the file.
 */
public final class ClaimFiles {

    public static final String CONTAINER_DIR = "/var/run/kubernetes.io/dra-device-attributes";
    static final String METADATA_DIR = "dra-device-metadata";
    static final String CDI_VERSION = "0.5.0";
    static final String METADATA_API_VERSION = "metadata.resource.k8s.io/v1alpha1";
    private static final String PERMISSIONS = "rwm";

    private final String driver;
    private final Path pluginDir;
    private final Path cdiDir;

    public ClaimFiles(String driver, Path pluginDir, Path cdiDir) {
        this.driver = driver;
        this.pluginDir = pluginDir;
        this.cdiDir = cdiDir;
    }

    /** The VFIO CDI device of a claim's device, or of an extended-resource claim's request. */
    public String vfioCdiId(String claimUid, String deviceOrRequest) {
        return driver + "/vfio=" + claimUid + "-" + deviceOrRequest;
    }

    public String metadataCdiId(String claimUid, String baseRequest) {
        return driver + "/metadata=" + claimUid + "_" + baseRequest;
    }

    public Path vfioSpec(String claimUid) {
        return cdiDir.resolve(driver + "_vfio_" + claimUid + ".json");
    }

    public Path metadataSpec(String claimUid, String baseRequest) {
        return cdiDir.resolve(driver + "_metadata_" + claimUid + "_" + baseRequest + ".json");
    }

    public Path metadataFile(String claimUid, String namespace, String claimName, String baseRequest) {
        return claimMetadataDir(claimUid, namespace, claimName).resolve(baseRequest).resolve("metadata.json");
    }

    /** Names and DNS labels hold no {@code _}: {@code <ns>_<claim>_<uid>} names one claim only. */
    private Path claimMetadataDir(String claimUid, String namespace, String claimName) {
        return pluginDir.resolve(METADATA_DIR).resolve(namespace + "_" + claimName + "_" + claimUid);
    }

    /** Where releases before this one wrote a claim's metadata, shared by claims of one name. */
    private Path legacyMetadataDir(String namespace, String claimName) {
        return pluginDir.resolve(METADATA_DIR).resolve(namespace + "_" + claimName);
    }

    /** Where the metadata file of {@code baseRequest} appears in the container. */
    public String containerPath(PreparedClaim claim, String baseRequest) {
        String file = driver + "-metadata.json";
        return claim.podClaimName().filter(n -> !n.isEmpty())
                .map(pod -> CONTAINER_DIR + "/resourceclaimtemplates/" + pod + "/" + baseRequest + "/" + file)
                .orElse(CONTAINER_DIR + "/resourceclaims/" + claim.name() + "/" + baseRequest + "/" + file);
    }

    /** A prepared device and the CDI devices the kubelet hands to the runtime for it. */
    public record CdiDevices(PreparedDevice device, List<String> ids) {
        public CdiDevices {
            ids = List.copyOf(ids);
        }
    }

    /**
     * The CDI device IDs per prepared device: its VFIO device, and on the first device of each
     * request that request's metadata mount (as the kubeletplugin helper attaches it). For an
     * extended-resource claim, the request's one CDI device on its first device, none on the others.
     */
    public List<CdiDevices> cdiDevices(PreparedClaim claim) {
        List<CdiDevices> out = new ArrayList<>();
        Set<String> firsts = new HashSet<>();
        for (PreparedDevice d : claim.devices()) {
            List<String> ids = new ArrayList<>();
            boolean first = firsts.add(d.baseRequest());
            if (claim.forExtendedResources()) {
                if (first) ids.add(vfioCdiId(claim.uid(), d.baseRequest()));
            } else {
                ids.add(vfioCdiId(claim.uid(), d.device()));
                if (first) ids.add(metadataCdiId(claim.uid(), d.baseRequest()));
            }
            out.add(new CdiDevices(d, ids));
        }
        return out;
    }

    /** Every file of the claim with its content, in writing order: metadata before the specs that mount it. */
    public Map<Path, String> render(PreparedClaim claim) {
        Map<Path, String> files = new LinkedHashMap<>();
        if (claim.forExtendedResources()) {
            files.put(vfioSpec(claim.uid()), GoJson.indented(extendedCdiSpec(claim)) + "\n");
            return files;
        }
        Map<String, List<PreparedDevice>> byRequest = new LinkedHashMap<>();
        for (PreparedDevice d : claim.devices()) byRequest.computeIfAbsent(d.request(), r -> new ArrayList<>()).add(d);
        for (Map.Entry<String, List<PreparedDevice>> e : byRequest.entrySet()) {
            String base = e.getValue().getFirst().baseRequest();
            files.put(metadataFile(claim.uid(), claim.namespace(), claim.name(), base), GoJson.indented(metadata(claim, e.getKey(), e.getValue())) + "\n");
            files.put(metadataSpec(claim.uid(), base), GoJson.indented(metadataCdiSpec(claim, base)));
        }
        files.put(vfioSpec(claim.uid()), GoJson.indented(vfioCdiSpec(claim)) + "\n");
        return files;
    }

    private Map<String, Object> metadata(PreparedClaim claim, String request, List<PreparedDevice> devices) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", claim.name());
        meta.put("namespace", claim.namespace());
        meta.put("uid", claim.uid());
        meta.put("generation", 1L);
        List<Object> list = new ArrayList<>();
        for (PreparedDevice d : devices) {
            Map<String, Object> device = new LinkedHashMap<>();
            device.put("driver", driver);
            device.put("pool", d.pool());
            device.put("name", d.device());
            Map<String, Object> attributes = new TreeMap<>();
            d.attributes().forEach((k, v) -> attributes.put(k, Map.of(v.field(), switch (v) {
                case AttributeValue.Text t -> t.value();
                case AttributeValue.Int n -> n.value();
                case AttributeValue.Bool b -> b.value();
                case AttributeValue.Ints l -> l.values();
            })));
            if (!attributes.isEmpty()) device.put("attributes", attributes);
            list.add(device);
        }
        Map<String, Object> req = new LinkedHashMap<>();
        req.put("name", request);
        req.put("devices", list);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("kind", "DeviceMetadata");
        doc.put("apiVersion", METADATA_API_VERSION);
        doc.put("metadata", meta);
        claim.podClaimName().ifPresent(p -> doc.put("podClaimName", p));
        doc.put("requests", List.of(req));
        return doc;
    }

    private Map<String, Object> metadataCdiSpec(PreparedClaim claim, String baseRequest) {
        Map<String, Object> mount = new LinkedHashMap<>();
        mount.put("hostPath", metadataFile(claim.uid(), claim.namespace(), claim.name(), baseRequest).toString());
        mount.put("containerPath", containerPath(claim, baseRequest));
        mount.put("options", List.of("ro", "bind"));
        return spec("metadata", List.of(device(claim.uid() + "_" + baseRequest, Map.of("mounts", List.of(mount)))));
    }

    private Map<String, Object> vfioCdiSpec(PreparedClaim claim) {
        List<Object> devices = new ArrayList<>();
        for (PreparedDevice d : claim.devices()) {
            devices.add(device(claim.uid() + "-" + d.device(), Map.of("deviceNodes", nodes(d.vfioPaths()))));
        }
        return spec("vfio", devices);
    }

    private Map<String, Object> extendedCdiSpec(PreparedClaim claim) {
        List<Object> devices = new ArrayList<>();
        for (RequestEdits r : claim.extended()) {
            Map<String, Object> edits = new LinkedHashMap<>();
            List<Object> env = new ArrayList<>();
            r.env().forEach((name, value) -> env.add(name + "=" + value));
            edits.put("env", env);
            edits.put("deviceNodes", nodes(r.deviceNodes()));
            devices.add(device(claim.uid() + "-" + r.request(), edits));
        }
        return spec("vfio", devices);
    }

    private static List<Object> nodes(List<String> paths) {
        List<Object> nodes = new ArrayList<>();
        for (String path : paths) {
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("path", path);
            node.put("permissions", PERMISSIONS);
            nodes.add(node);
        }
        return nodes;
    }

    private Map<String, Object> spec(String kindClass, List<Object> devices) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("cdiVersion", CDI_VERSION);
        spec.put("kind", driver + "/" + kindClass);
        spec.put("devices", devices);
        return spec;
    }

    private static Map<String, Object> device(String name, Map<String, Object> edits) {
        Map<String, Object> device = new LinkedHashMap<>();
        device.put("name", name);
        device.put("containerEdits", edits);
        return device;
    }

    /** Writes every file of the claim; each appears whole (a runtime may read the CDI directory at any time). */
    public void write(PreparedClaim claim) throws IOException {
        for (Map.Entry<Path, String> f : render(claim).entrySet()) writeWhole(f.getKey(), f.getValue());
    }

    /**
     * Removes whatever files a claim with this UID, namespace and name may have: also those of a
     * prepare that never reached the checkpoint, and the metadata an earlier release wrote under
     * the claim's name when it names this UID. Missing files are no error.
     */
    public void remove(String claimUid, String namespace, String claimName) throws IOException {
        Files.deleteIfExists(vfioSpec(claimUid));
        if (Files.isDirectory(cdiDir)) {
            try (DirectoryStream<Path> specs = Files.newDirectoryStream(cdiDir, driver + "_metadata_" + claimUid + "_*.json")) {
                for (Path p : specs) Files.deleteIfExists(p);
            }
        }
        FileTrees.deleteTree(claimMetadataDir(claimUid, namespace, claimName));
        Path legacy = legacyMetadataDir(namespace, claimName);
        if (LegacyMetadata.namesOnly(legacy, claimUid)) FileTrees.deleteTree(legacy);
    }

    /**
     * What shows that claims were prepared on this host, if anything: a VFIO CDI spec of this
     * driver, or device metadata. A checkpoint missing beside them was lost.
     */
    public Optional<String> anyOnHost() throws IOException {
        if (Files.isDirectory(cdiDir)) {
            try (DirectoryStream<Path> specs = Files.newDirectoryStream(cdiDir, driver + "_vfio_*.json")) {
                for (Path p : specs) return Optional.of("CDI spec " + p);
            }
        }
        Path metadata = pluginDir.resolve(METADATA_DIR);
        if (Files.isDirectory(metadata, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> claims = Files.newDirectoryStream(metadata)) {
                for (Path p : claims) return Optional.of("device metadata " + p);
            }
        }
        return Optional.empty();
    }

    private void writeWhole(Path file, String content) throws IOException {
        Path dir = file.getParent();
        if (dir.startsWith(pluginDir)) {
            FileTrees.makeDirectories(pluginDir, dir);
        } else if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, FileTrees.DIRECTORY_MODE);
        }
        // a directory in the file's place (made by hand, or by a runtime that bind-mounted a missing source) hides it
        if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) FileTrees.deleteTree(file);
        AtomicFile.write(file, content.getBytes(StandardCharsets.UTF_8), AtomicFile.WORLD_READABLE);
    }
}
