package io.vfiodp.libvirt;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The part of a VirtualMachineInstance the helper reads: {@code spec.domain.devices.gpus[]},
 * then {@code hostDevices[]}, our companions annotation, its name and the virt-launcher running it.
 *
 * @param requests      entries in VMI order, gpus first; DRA entries ({@code claimName}) are left
 *                      out because no env var carries their devices
 * @param companions    the {@value #COMPANIONS_ANNOTATION} annotation when present
 * @param claimedGpus   the {@code gpus[]} entries with a {@code claimName}: no device of ours, but
 *                      KubeVirt weighs their display settings with every other {@code gpus[]} entry
 * @param name          {@code namespace/name} from its metadata, as messages name it ({@code VMI default/vm1});
 *                      empty when the document has neither
 * @param launcherImage {@code status.launcherContainerImageVersion} when set ({@link LauncherImage})
 */
public record VmiDevices(List<DeviceRequest> requests, Optional<Boolean> companions, List<ClaimedGpu> claimedGpus, String name,
                         Optional<String> launcherImage) {

    /** VMI annotation asking for companion functions ({@code "true"} / {@code "false"}). */
    public static final String COMPANIONS_ANNOTATION = "vfio-device-plugin.io/companions";

    /** A DRA entry of {@code gpus[]}: where it is and what it says about its display. */
    public record ClaimedGpu(int index, String name, VgpuDisplay display) {
        /** How messages name it: {@code gpus[2] 'dra0' (claim)}. */
        public String describe() {
            return DeviceRequest.Section.GPUS.field() + "[" + index + "] '" + name + "' (claim)";
        }
    }

    public VmiDevices {
        requests = List.copyOf(requests);
        claimedGpus = List.copyOf(claimedGpus);
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(launcherImage, "launcherImage");
    }

    /** How messages name the VMI: {@code VMI default/vm1}, or {@code the VMI} without metadata. */
    public String describe() {
        return name.isEmpty() ? "the VMI" : "VMI " + name;
    }

    /**
     * Parses a VMI as JSON (what virt-launcher hands a hook, {@code kubectl get vmi -o json})
     * or YAML. Throws {@link IllegalArgumentException} naming the offending field.
     */
    public static VmiDevices parse(String document) {
        JsonNode root;
        try {
            ObjectMapper mapper = document.stripLeading().startsWith("{") ? new JsonMapper() : new YAMLMapper();
            root = mapper.readTree(document);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("VMI is neither JSON nor YAML: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) throw new IllegalArgumentException("VMI must be an object");
        List<DeviceRequest> requests = new ArrayList<>();
        List<ClaimedGpu> claimed = new ArrayList<>();
        JsonNode devices = root.path("spec").path("domain").path("devices");
        for (DeviceRequest.Section section : DeviceRequest.Section.values()) {
            JsonNode list = devices.path(section.field());
            if (list.isMissingNode() || list.isNull()) continue;
            if (!list.isArray()) throw new IllegalArgumentException("VMI spec.domain.devices." + section.field() + " must be a list");
            for (int i = 0; i < list.size(); i++) {
                entry(section, i, list.get(i), claimed).ifPresent(requests::add);
            }
        }
        return new VmiDevices(requests, companionsAnnotation(root), claimed, name(root.path("metadata")),
                optionalText(root.path("status"), "launcherContainerImageVersion", "VMI status"));
    }

    private static String name(JsonNode metadata) {
        String name = optionalText(metadata, "name", "VMI metadata").orElse("");
        String namespace = optionalText(metadata, "namespace", "VMI metadata").orElse("");
        return namespace.isEmpty() || name.isEmpty() ? name : namespace + "/" + name;
    }

    private static Optional<String> optionalText(JsonNode node, String field, String where) {
        String v = node.isObject() ? text(node, field, where) : "";
        return v.isEmpty() ? Optional.empty() : Optional.of(v);
    }

    private static Optional<DeviceRequest> entry(DeviceRequest.Section section, int index, JsonNode node, List<ClaimedGpu> claimed) {
        String where = "VMI spec.domain.devices." + section.field() + "[" + index + "]";
        if (!node.isObject()) throw new IllegalArgumentException(where + " must be an object");
        String name = text(node, "name", where);
        String deviceName = text(node, "deviceName", where);
        VgpuDisplay display = section == DeviceRequest.Section.GPUS
                ? display(node.path("virtualGPUOptions"), where + ".virtualGPUOptions")
                : new VgpuDisplay.Unspecified();
        if (deviceName.isEmpty() && !text(node, "claimName", where).isEmpty()) {
            if (section == DeviceRequest.Section.GPUS) claimed.add(new ClaimedGpu(index, name, display));
            return Optional.empty();
        }
        if (name.isEmpty()) throw new IllegalArgumentException(where + " has no name");
        if (deviceName.isEmpty()) throw new IllegalArgumentException(where + " '" + name + "' has no deviceName");
        return Optional.of(new DeviceRequest(section, index, name, deviceName, display));
    }

    /** KubeVirt's API: {@code hostDevices[]} entries have no {@code virtualGPUOptions}. */
    private static VgpuDisplay display(JsonNode options, String where) {
        if (options.isMissingNode() || options.isNull()) return new VgpuDisplay.Unspecified();
        if (!options.isObject()) throw new IllegalArgumentException(where + " must be an object");
        JsonNode display = options.path("display");
        if (display.isMissingNode() || display.isNull()) return new VgpuDisplay.Unspecified();
        if (!display.isObject()) throw new IllegalArgumentException(where + ".display must be an object");
        Optional<Boolean> enabled = bool(display.path("enabled"), where + ".display.enabled");
        return new VgpuDisplay.Requested(enabled, ramFb(display.path("ramFB"), where + ".display.ramFB"));
    }

    private static VgpuDisplay.RamFb ramFb(JsonNode ramFb, String where) {
        if (ramFb.isMissingNode() || ramFb.isNull()) return VgpuDisplay.RamFb.ABSENT;
        if (!ramFb.isObject()) throw new IllegalArgumentException(where + " must be an object");
        return bool(ramFb.path("enabled"), where + ".enabled")
                .map(on -> on ? VgpuDisplay.RamFb.ENABLED : VgpuDisplay.RamFb.DISABLED)
                .orElse(VgpuDisplay.RamFb.UNSET);
    }

    private static Optional<Boolean> companionsAnnotation(JsonNode root) {
        JsonNode value = root.path("metadata").path("annotations").path(COMPANIONS_ANNOTATION);
        if (value.isMissingNode() || value.isNull()) return Optional.empty();
        return switch (value.asString()) {
            case "true" -> Optional.of(true);
            case "false" -> Optional.of(false);
            default -> throw new IllegalArgumentException(
                    "VMI annotation " + COMPANIONS_ANNOTATION + " must be \"true\" or \"false\", not \"" + value.asString() + "\"");
        };
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode v = node.path(field);
        if (v.isMissingNode() || v.isNull()) return "";
        if (!v.isString()) throw new IllegalArgumentException(where + "." + field + " must be a string");
        return v.asString();
    }

    private static Optional<Boolean> bool(JsonNode v, String where) {
        if (v.isMissingNode() || v.isNull()) return Optional.empty();
        if (!v.isBoolean()) throw new IllegalArgumentException(where + " must be true or false");
        return Optional.of(v.asBoolean());
    }
}
