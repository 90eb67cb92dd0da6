package io.vfiodp.holders;

import java.util.Objects;
import java.util.Optional;

/**
 * A container that holds a device: its pod, the way the device reached it, and the VM it runs
 * when the pod is a KubeVirt virt-launcher pod the API told about.
 *
 * @param via a device plugin's resource or a DRA claim
 * @param vmi the VirtualMachineInstance the pod runs; empty when it runs none or the API cannot tell
 */
public record Holder(String namespace, String pod, String container, Via via, Optional<Vmi> vmi) {

    public Holder {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(pod, "pod");
        Objects.requireNonNull(container, "container");
        Objects.requireNonNull(via, "via");
        Objects.requireNonNull(vmi, "vmi");
    }

    /** {@code namespace/pod}. */
    public String podName() {
        return namespace + "/" + pod;
    }

    /** How the device reached the container. */
    public sealed interface Via {
        /** Through a device plugin, as {@code resource}. */
        record Plugin(String resource) implements Via {
            public Plugin {
                Objects.requireNonNull(resource, "resource");
            }
        }

        /** Prepared through DRA for ResourceClaim {@code namespace/name} (the scheduler's claim of a pod's extended resources too). */
        record Claim(String namespace, String name) implements Via {
            public Claim {
                Objects.requireNonNull(namespace, "namespace");
                Objects.requireNonNull(name, "name");
            }

            @Override
            public String toString() {
                return namespace + "/" + name;
            }
        }
    }

    /**
     * A VirtualMachineInstance, in its pod's namespace.
     *
     * @param vm the VirtualMachine that owns it; empty for a VMI of its own, or while its owner cannot be read
     */
    public record Vmi(String name, String uid, Optional<String> vm) {
        public Vmi {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(uid, "uid");
            Objects.requireNonNull(vm, "vm");
        }
    }
}
