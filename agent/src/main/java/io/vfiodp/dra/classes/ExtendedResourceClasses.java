package io.vfiodp.dra.classes;

import io.vfiodp.policy.ResourceName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The DeviceClasses a node's DRA resources need, from the names the scan and the policy gave: what
 * {@code inventory --device-classes} prints and what {@code serve} checks the API for.
 *
 * <p>A class's name ({@link #className}) is a DNS subdomain under the driver's name, one for each
 * resource name and never the same for two: {@code <name>.<variant>.<domain>.<driver>}, where
 * {@code <name>} is the resource's name part in lower case with {@code _} and {@code .} written as
 * {@code -}, and {@code <variant>} is a hex number recording what that lost: per letter whether it
 * was upper case (one bit), per {@code -}, {@code _} or {@code .} which it was (two bits), in order.
 * {@code nvidia.com/TU104GL_TESLA_T4} → {@code tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io};
 * {@code nvidia.com/tu104gl-tesla-t4} gets {@code 0000} instead. A name that differs only in case or
 * in {@code _} against {@code -} gets another variant, so two resources never share a class.
 */
public final class ExtendedResourceClasses {

    private static final int MAX_NAME = 253;
    private static final int MAX_LABEL = 63;
    /** The longest string a device attribute holds: a longer resource name is not published as {@code resourceName}. */
    private static final int MAX_ATTRIBUTE = 64;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private ExtendedResourceClasses() {}

    /** The class for one resource, or why none can select its devices. */
    public sealed interface Outcome {
        ResourceName resource();
    }

    public record Named(ExtendedResourceClass deviceClass) implements Outcome {
        @Override
        public ResourceName resource() {
            return deviceClass.resource();
        }
    }

    public record Unnamable(ResourceName resource, String reason) implements Outcome {
        public Unnamable {
            Objects.requireNonNull(resource, "resource");
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** One outcome per resource, in resource-name order. */
    public static List<Outcome> of(String driver, Collection<ResourceName> resources) {
        List<Outcome> out = new ArrayList<>();
        for (ResourceName r : new TreeSet<>(resources)) out.add(of(driver, r));
        return out;
    }

    public static Outcome of(String driver, ResourceName resource) {
        if (resource.value().length() > MAX_ATTRIBUTE) {
            return new Unnamable(resource, "the name is " + resource.value().length() + " characters long, more than the " + MAX_ATTRIBUTE
                    + " a device attribute holds: the driver's devices carry no resourceName attribute a DeviceClass could select them by;"
                    + " configure a shorter resourceName for them");
        }
        String name = className(driver, resource);
        if (name.length() > MAX_NAME) {
            return new Unnamable(resource, "its DeviceClass name " + name + " would be " + name.length() + " characters long, more than the "
                    + MAX_NAME + " the API allows");
        }
        String selector = "device.driver == '" + driver + "' && device.attributes['" + driver + "'].resourceName == '" + resource.value() + "'";
        return new Named(new ExtendedResourceClass(name, resource, selector));
    }

    /** {@code <name>.<variant>.<domain>.<driver>}; see the class comment. Each part is a valid DNS label. */
    public static String className(String driver, ResourceName resource) {
        String part = resource.name();
        StringBuilder label = new StringBuilder(part.length());
        StringBuilder bits = new StringBuilder();
        for (char c : part.toCharArray()) {
            if (Character.isLetter(c)) {
                label.append(Character.toLowerCase(c));
                bits.append(Character.isUpperCase(c) ? '1' : '0');
            } else if (c == '-' || c == '_' || c == '.') {
                label.append('-');
                bits.append(c == '-' ? "00" : c == '_' ? "01" : "10");
            } else {
                label.append(c);
            }
        }
        // the name part is at most 63 characters, so the label is a DNS label: it starts and ends with a letter or digit
        assert label.length() <= MAX_LABEL;
        return label + "." + hex(bits) + "." + resource.domain().toLowerCase(Locale.ROOT) + "." + driver;
    }

    /** The bits as hex digits, padded with zeros at the end; at least one digit. */
    private static String hex(CharSequence bits) {
        int digits = Math.max(1, (bits.length() + 3) / 4);
        StringBuilder out = new StringBuilder(digits);
        for (int d = 0; d < digits; d++) {
            int v = 0;
            for (int b = 0; b < 4; b++) {
                int i = d * 4 + b;
                v = v << 1 | (i < bits.length() && bits.charAt(i) == '1' ? 1 : 0);
            }
            out.append(HEX[v]);
        }
        return out.toString();
    }

    /**
     * The classes as YAML documents, with what {@code inventory} prints above them, for
     * {@code kubectl apply -f -}; a resource without a class is a comment saying why.
     */
    public static String yaml(String driver, List<Outcome> outcomes, String header) {
        StringBuilder out = new StringBuilder();
        header.lines().forEach(l -> out.append("# ").append(l).append('\n'));
        for (Outcome o : outcomes) {
            switch (o) {
                case Named n -> out.append("---\n").append(n.deviceClass().yaml());
                case Unnamable u -> out.append("# ").append(u.resource().value()).append(": no DeviceClass: ").append(u.reason()).append('\n');
            }
        }
        return out.toString();
    }
}
