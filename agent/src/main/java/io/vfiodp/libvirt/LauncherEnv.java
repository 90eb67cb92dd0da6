package io.vfiodp.libvirt;

import io.vfiodp.policy.DeviceKind;
import io.vfiodp.policy.KubeVirtEnv;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The environment virt-launcher's compute container sees: what the kubelet put there from
 * our Allocate answers ({@code PCI_RESOURCE_*}, {@code MDEV_PCI_RESOURCE_*},
 * {@code VFIO_DP_COMPANIONS_*}) among everything else.
 */
public final class LauncherEnv {

    /** Our {@code VFIO_DP_COMPANIONS_<NAME>} and its raw value when set. */
    record CompanionsVariable(String name, Optional<String> value) {}

    /** KubeVirt's prefix for USB host devices; those resources are not ours to convert. */
    static final String USB_PREFIX = "USB_RESOURCE";

    private final Map<String, String> variables;

    private LauncherEnv(Map<String, String> variables) {
        this.variables = Map.copyOf(variables);
    }

    public static LauncherEnv of(Map<String, String> variables) {
        return new LauncherEnv(variables);
    }

    /**
     * Reads {@code NAME=VALUE} lines (the format of {@code env}, Docker env files and
     * {@code /proc/<pid>/environ} with newlines): blank lines and {@code #} comments are
     * skipped, a leading {@code export } is allowed, one pair of surrounding quotes is removed.
     */
    public static LauncherEnv fromFile(Path file) throws IOException {
        Map<String, String> vars = new LinkedHashMap<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) continue;
            if (line.startsWith("export ")) line = line.substring("export ".length()).strip();
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new IOException(file + " line " + (i + 1) + ": expected NAME=VALUE, got '" + lines.get(i) + "'");
            }
            vars.put(line.substring(0, eq).strip(), unquote(line.substring(eq + 1)));
        }
        return new LauncherEnv(vars);
    }

    private static String unquote(String v) {
        if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
            return v.substring(1, v.length() - 1);
        }
        return v;
    }

    /** True when any {@code PCI_RESOURCE_*} or {@code MDEV_PCI_RESOURCE_*} variable is set. */
    public boolean hasDeviceVariables() {
        return variables.keySet().stream().anyMatch(LauncherEnv::isDeviceVariable);
    }

    private static boolean isDeviceVariable(String name) {
        return name.startsWith(DeviceKind.PCI.envPrefix() + "_") || name.startsWith(DeviceKind.MDEV.envPrefix() + "_");
    }

    /**
     * The variable(s) that carry {@code resourceName}'s devices, as KubeVirt looks them up. A
     * variable that lists nothing (empty, or a lone comma) next to one that lists devices is
     * passed over: virt-launcher reads both, and the empty one yields no hostdev
     * ({@code hostdevice/addresspool.go}, {@code createHostDevices}).
     */
    ResourceVariable lookup(String resourceName) {
        String pci = KubeVirtEnv.variableName(DeviceKind.PCI, resourceName);
        String mdev = KubeVirtEnv.variableName(DeviceKind.MDEV, resourceName);
        String pciValue = variables.get(pci);
        String mdevValue = variables.get(mdev);
        if (pciValue != null && mdevValue != null) {
            if (listsNothing(pciValue) && !listsNothing(mdevValue)) pciValue = null;
            else if (listsNothing(mdevValue) && !listsNothing(pciValue)) mdevValue = null;
            else return new ResourceVariable.Both(pci, mdev);
        }
        if (pciValue != null) return new ResourceVariable.Set(DeviceKind.PCI, pci, pciValue);
        if (mdevValue != null) return new ResourceVariable.Set(DeviceKind.MDEV, mdev, mdevValue);
        String usb = USB_PREFIX + pci.substring(DeviceKind.PCI.envPrefix().length());
        if (variables.containsKey(usb)) return new ResourceVariable.Usb(usb);
        return new ResourceVariable.Unset(pci, mdev);
    }

    /** KubeVirt's reading of a value: a trailing comma dropped, then nothing left. */
    static boolean listsNothing(String value) {
        return value.isEmpty() || value.equals(",");
    }

    /**
     * Every device variable: the PCI ones, then the mdev ones (virt-launcher writes a list's PCI
     * hostdevs before its mdevs), each ordered by name so that the same environment always gives
     * the same hostdevs in the same order.
     */
    List<ResourceVariable.Set> deviceVariables() {
        Map<String, String> sorted = new TreeMap<>(variables);
        List<ResourceVariable.Set> all = sorted.entrySet().stream()
                .filter(e -> isDeviceVariable(e.getKey()))
                .map(e -> new ResourceVariable.Set(
                        e.getKey().startsWith(DeviceKind.MDEV.envPrefix() + "_") ? DeviceKind.MDEV : DeviceKind.PCI,
                        e.getKey(), e.getValue()))
                .toList();
        return Stream.concat(all.stream().filter(v -> v.kind() == DeviceKind.PCI),
                all.stream().filter(v -> v.kind() == DeviceKind.MDEV)).toList();
    }

    /**
     * Our companions variable for the resource whose main variable is {@code variable}: same
     * name suffix, so it is found without knowing the resource name (which the suffix cannot
     * give back: {@code /} and {@code .} both became {@code _}).
     */
    CompanionsVariable companionsFor(ResourceVariable.Set variable) {
        String name = KubeVirtEnv.COMPANIONS_PREFIX + variable.name().substring(variable.kind().envPrefix().length() + 1);
        return new CompanionsVariable(name, Optional.ofNullable(variables.get(name)));
    }
}
