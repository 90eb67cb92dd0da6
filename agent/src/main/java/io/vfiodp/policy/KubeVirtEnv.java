package io.vfiodp.policy;

import io.vfiodp.host.PciAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The env-var contract between Allocate and virt-launcher.
 *
 * <p>KubeVirt's {@code ResourceNameToEnvVar}: prefix + {@code _} + the resource name upper-cased,
 * then {@code /} and {@code .} replaced by {@code _}; hyphens stay. The value is the allocated
 * device IDs of one container request, comma-separated.
 *
 * <p>Ours on top: {@value #COMPANIONS_PREFIX}{@code <NAME>} lists, per allocated device and in
 * the same order, the companion functions that travel with it:
 * {@code 0000:01:00.0=0000:01:00.1+0000:01:00.2,0000:02:00.0=}. KubeVirt looks variables up by
 * exact name, so it never reads this one; the launcher helper does.
 */
public final class KubeVirtEnv {

    public static final String COMPANIONS_PREFIX = "VFIO_DP_COMPANIONS_";

    private KubeVirtEnv() {}

    /** {@code PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4} for a PCI resource, {@code MDEV_PCI_RESOURCE_…} for mdev. */
    public static String variableName(DeviceKind kind, ResourceName resource) {
        return kind.envPrefix() + "_" + suffix(resource.value());
    }

    /** Same as {@link #variableName} for a raw name as a VMI's {@code deviceName} carries it. */
    public static String variableName(DeviceKind kind, String resourceName) {
        return kind.envPrefix() + "_" + suffix(resourceName);
    }

    /**
     * What a container given {@code devices} of one resource finds in its environment: the
     * resource's variable with the devices' IDs in the order given, comma-separated, and for PCI
     * devices with companions the companions variable in the same order. The device plugin's
     * Allocate and a DRA prepare of an extended-resource claim both hand out exactly this, so a
     * VM sees the same either way.
     *
     * @param variable {@link #variableName(DeviceKind, ResourceName)} of the resource, computed once by a caller that answers often
     */
    public static Map<String, String> containerEnv(String variable, ResourceName resource, DeviceKind kind, List<ExposedDevice> devices) {
        Map<String, String> env = new LinkedHashMap<>(4);
        // loops, not streams: the kubelet's first Allocates run interpreted, where a stream pipeline costs several times a loop
        StringBuilder ids = new StringBuilder();
        boolean anyCompanions = false;
        for (ExposedDevice d : devices) {
            if (!ids.isEmpty()) ids.append(',');
            ids.append(d.id());
            anyCompanions |= !d.companions().isEmpty();
        }
        env.put(variable, ids.toString());
        if (kind == DeviceKind.PCI && anyCompanions) {
            // Same order as the main variable: the launcher helper pairs them by position.
            Map<PciAddress, List<PciAddress>> companions = new LinkedHashMap<>();
            for (ExposedDevice d : devices) companions.put(d.pciAddress(), d.companions());
            env.put(companionsVariableName(resource), encodeCompanions(companions));
        }
        return env;
    }

    /** {@link #containerEnv(String, ResourceName, DeviceKind, List)} with the variable's name worked out here. */
    public static Map<String, String> containerEnv(ResourceName resource, DeviceKind kind, List<ExposedDevice> devices) {
        return containerEnv(variableName(kind, resource), resource, kind, devices);
    }

    public static String companionsVariableName(ResourceName resource) {
        return COMPANIONS_PREFIX + suffix(resource.value());
    }

    public static String companionsVariableName(String resourceName) {
        return COMPANIONS_PREFIX + suffix(resourceName);
    }

    private static String suffix(String resourceName) {
        return resourceName.toUpperCase(Locale.ROOT).replace('/', '_').replace('.', '_');
    }

    /** The value of a companions variable, in allocation order. */
    public static String encodeCompanions(Map<PciAddress, List<PciAddress>> byDevice) {
        StringBuilder sb = new StringBuilder();
        for (var e : byDevice.entrySet()) {
            if (!sb.isEmpty()) sb.append(',');
            sb.append(e.getKey()).append('=');
            for (int i = 0; i < e.getValue().size(); i++) {
                if (i > 0) sb.append('+');
                sb.append(e.getValue().get(i));
            }
        }
        return sb.toString();
    }

    /**
     * Parses a companions value; throws naming the bad element. Order is kept: the n-th key is
     * the n-th address of the main variable.
     */
    public static Map<PciAddress, List<PciAddress>> decodeCompanions(String value) {
        Map<PciAddress, List<PciAddress>> out = new LinkedHashMap<>();
        if (value == null || value.isEmpty()) return out;
        for (String entry : value.split(",", -1)) {
            int eq = entry.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("companion entry '" + entry + "' has no '=' (expected <device>=<fn>+<fn>)");
            PciAddress device = PciAddress.parse(entry.substring(0, eq));
            List<PciAddress> comps = new ArrayList<>();
            String rest = entry.substring(eq + 1);
            if (!rest.isEmpty()) {
                for (String c : rest.split("\\+", -1)) comps.add(PciAddress.parse(c));
            }
            if (out.put(device, List.copyOf(comps)) != null) {
                throw new IllegalArgumentException("companion entry for " + device + " given twice");
            }
        }
        return out;
    }
}
