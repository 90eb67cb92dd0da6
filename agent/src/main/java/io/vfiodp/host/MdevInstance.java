package io.vfiodp.host;

import java.util.regex.Pattern;

/**
 * A created mediated device ({@code bus/mdev/devices/<uuid>}).
 *
 * @param typeName the type's {@code name} file, or the type id when it has none
 */
public record MdevInstance(String uuid, String typeId, String typeName, PciAddress parent, int iommuGroup) {

    /** The kernel prints mdev UUIDs in lower case; KubeVirt hands them to libvirt verbatim. */
    private static final Pattern UUID =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    /** Whether {@code name} names an mdev as the kernel does: a lower-case UUID. */
    public static boolean isUuid(String name) {
        return UUID.matcher(name).matches();
    }
}
