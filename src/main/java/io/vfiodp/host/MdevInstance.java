package io.vfiodp.host;

/**
 * A created mediated device ({@code bus/mdev/devices/<uuid>}).
 *
 * @param typeName the type's {@code name} file, or the type id when it has none
 */
public record MdevInstance(String uuid, String typeId, String typeName, PciAddress parent, int iommuGroup) {}
