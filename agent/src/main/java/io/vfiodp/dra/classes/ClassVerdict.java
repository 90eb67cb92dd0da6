package io.vfiodp.dra.classes;

import java.util.Objects;

/**
 * Whether the DeviceClass a resource routed to DRA needs is in the API as this node's scan and
 * policy would print it. Only {@link Ready} lets a pod asking the extended resource get the
 * resource's devices here: the kubelet serves no device plugin for a name routed to DRA.
 */
public sealed interface ClassVerdict {

    /** What it means for the node, with what to do when it is a problem: for logs and Events. */
    String describe();

    default boolean ready() {
        return this instanceof Ready;
    }

    record Ready(String className) implements ClassVerdict {
        @Override
        public String describe() {
            return "DeviceClass " + className + " is in place: pods asking the resource get its devices here through DRA";
        }
    }

    record Missing(String className) implements ClassVerdict {
        @Override
        public String describe() {
            return "DeviceClass " + className + " does not exist, so pods asking the resource are scheduled neither through DRA nor through"
                    + " a device plugin here; create it: vfio-device-plugin inventory --dra-resources=... --device-classes | kubectl apply -f -";
        }
    }

    /** The class exists but would not give this driver's devices of the resource. */
    record Differs(String className, String what) implements ClassVerdict {
        public Differs {
            Objects.requireNonNull(what, "what");
        }

        @Override
        public String describe() {
            return "DeviceClass " + className + " " + what + "; replace it with what inventory --device-classes prints";
        }
    }

    /** The API did not answer, or refused. */
    record Unreadable(String className, String why) implements ClassVerdict {
        @Override
        public String describe() {
            return "cannot read DeviceClass " + className + ": " + why;
        }
    }

    /** No class can select the resource's devices. */
    record Unnamable(String reason) implements ClassVerdict {
        @Override
        public String describe() {
            return "no DeviceClass can select its devices: " + reason;
        }
    }
}
