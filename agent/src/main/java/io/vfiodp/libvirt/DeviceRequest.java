package io.vfiodp.libvirt;

import java.util.Objects;

/**
 * One {@code spec.domain.devices.gpus[]} or {@code hostDevices[]} entry of a VMI.
 *
 * @param section      which list it is in
 * @param index        its position in that list
 * @param name         the entry's {@code name}; the alias is built from it
 * @param resourceName its {@code deviceName}, the resource the kubelet allocated from
 * @param display      vGPU display choice; only {@code gpus[]} entries carry one
 */
public record DeviceRequest(Section section, int index, String name, String resourceName, VgpuDisplay display) {

    /** The two VMI lists, with KubeVirt's alias prefix for each. */
    public enum Section {
        GPUS("gpus", "ua-gpu-"),
        HOST_DEVICES("hostDevices", "ua-hostdevice-");

        private final String field;
        private final String aliasPrefix;

        Section(String field, String aliasPrefix) {
            this.field = field;
            this.aliasPrefix = aliasPrefix;
        }

        public String field() {
            return field;
        }

        public String aliasPrefix() {
            return aliasPrefix;
        }
    }

    public DeviceRequest {
        Objects.requireNonNull(section, "section");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(resourceName, "resourceName");
        Objects.requireNonNull(display, "display");
    }

    public String alias() {
        return section.aliasPrefix() + name;
    }

    /** How messages name the entry: {@code gpus[1] 'gpu1' (nvidia.com/TU104GL_TESLA_T4)}. */
    public String describe() {
        return section.field() + "[" + index + "] '" + name + "' (" + resourceName + ")";
    }
}
