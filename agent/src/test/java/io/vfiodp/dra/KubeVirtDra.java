package io.vfiodp.dra;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.json.JsonMapper;

/**
 * KubeVirt's virt-launcher reading a DRA GPU's device, step for step as {@code pkg/dra/utils.go} and
 * {@code virtwrap/device/hostdevice/dra/gpu_hostdev.go} do it: the VMI's claim entry gives the
 * directory ({@code resourceclaims/<resourceClaimName>} or {@code resourceclaimtemplates/<entry name>}),
 * exactly one {@code *-metadata.json} must be in {@code <request>/}, the file is a JSON stream whose
 * first object of apiVersion {@code metadata.resource.k8s.io/v1alpha1} counts, the request must hold
 * exactly one device, and {@code mdevUUID} wins over {@code resource.kubernetes.io/pciBusID}, which
 * must match {@code hwutil.PCI_ADDRESS_PATTERN}.
 */
final class KubeVirtDra {

    static final String BASE = "var/run/kubernetes.io/dra-device-attributes";
    private static final Pattern PCI_ADDRESS = Pattern.compile("^([\\da-fA-F]{4}):([\\da-fA-F]{2}):([\\da-fA-F]{2})\\.([0-7]{1})$");

    /** A VMI's {@code spec.resourceClaims[]} entry: a claim by name, or one made from a template. */
    record VmiClaim(String name, Optional<String> resourceClaimName, Optional<String> templateName) {
        static VmiClaim named(String name, String claim) {
            return new VmiClaim(name, Optional.of(claim), Optional.empty());
        }

        static VmiClaim template(String name, String template) {
            return new VmiClaim(name, Optional.empty(), Optional.of(template));
        }
    }

    /** The host device virt-launcher writes for a DRA GPU. */
    sealed interface HostDevice {}

    record Mdev(String uuid) implements HostDevice {}

    record Pci(String domain, String bus, String slot, String function) implements HostDevice {}

    private KubeVirtDra() {}

    static HostDevice gpu(Path containerRoot, List<VmiClaim> claims, String claimName, String requestName) throws IOException {
        JsonNode device = resolveDevice(containerRoot.resolve(BASE), claims, claimName, requestName);
        JsonNode attributes = device.path("attributes");
        String mdev = attributes.path("mdevUUID").path("string").asString("");
        if (!mdev.isEmpty()) return new Mdev(mdev);
        String pci = attributes.path("resource.kubernetes.io/pciBusID").path("string").asString("");
        if (pci.isEmpty()) throw new IOException("GPU has no mdevUUID or pciBusID in metadata for claim " + claimName + " request " + requestName);
        var m = PCI_ADDRESS.matcher(pci);
        if (!m.matches()) throw new IOException("failed to parse pci address " + pci);
        return new Pci("0x" + m.group(1), "0x" + m.group(2), "0x" + m.group(3), "0x" + m.group(4));
    }

    private static JsonNode resolveDevice(Path base, List<VmiClaim> claims, String claimName, String requestName) throws IOException {
        VmiClaim rc = claims.stream().filter(c -> c.name().equals(claimName)).findFirst()
                .orElseThrow(() -> new IOException("metadata not found for claim " + claimName));
        Path dir = rc.resourceClaimName().filter(n -> !n.isEmpty())
                .map(n -> base.resolve("resourceclaims").resolve(n))
                .orElse(base.resolve("resourceclaimtemplates").resolve(rc.name()));
        List<Path> matches = new ArrayList<>();
        Path requestDir = dir.resolve(requestName);
        if (Files.isDirectory(requestDir)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(requestDir, "*-metadata.json")) {
                ds.forEach(matches::add);
            }
        }
        if (matches.isEmpty()) throw new IOException("failed to read metadata for claim " + claimName + " request " + requestName + ": no files");
        if (matches.size() > 1) throw new IOException("found " + matches.size() + " metadata files but KubeVirt only supports exactly one driver per request");
        JsonNode md = decodeStream(matches.getFirst());
        for (JsonNode req : md.path("requests")) {
            if (req.path("name").asString("").equals(requestName)) {
                JsonNode devices = req.path("devices");
                if (devices.isEmpty()) throw new IOException("request " + requestName + " has no devices");
                if (devices.size() > 1) throw new IOException("request " + requestName + " has " + devices.size() + " devices");
                return devices.get(0);
            }
        }
        throw new IOException("request " + requestName + " not found in metadata for claim " + md.path("metadata").path("name").asString());
    }

    private static JsonNode decodeStream(Path file) throws IOException {
        List<String> unknown = new ArrayList<>();
        JsonMapper mapper = new JsonMapper();
        try (JsonParser p = mapper.createParser(Files.readString(file)); MappingIterator<JsonNode> it = mapper.readValues(p, JsonNode.class)) {
            while (it.hasNextValue()) {
                JsonNode o = it.nextValue();
                String v = o.path("apiVersion").asString("");
                if (v.isEmpty()) throw new IOException("decode metadata object: missing apiVersion");
                if (!v.equals("metadata.resource.k8s.io/v1alpha1")) {
                    unknown.add(v);
                    continue;
                }
                return o;
            }
        }
        throw new IOException(unknown.isEmpty() ? "no metadata objects found in stream" : "no compatible metadata version found in stream " + unknown);
    }
}
