package io.vfiodp.cli;

import io.vfiodp.libvirt.KubeVirtRelease;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --kubevirt-version}: {@code 1.9}, {@code 1.10} (or {@code main}), in any form {@link KubeVirtRelease#parse} takes. */
final class KubeVirtVersionConverter implements ITypeConverter<KubeVirtRelease> {

    @Override
    public KubeVirtRelease convert(String value) {
        try {
            return KubeVirtRelease.parse(value);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
