package io.vfiodp.vgpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The one place that writes to sysfs. Attribute files exist already and must not be created or
 * truncated by us; the kernel takes the whole value in one {@code write(2)} and reports a refusal
 * as that call's errno (EBUSY, EINVAL, ENOSPC…), which Java raises as an {@link IOException}.
 */
@FunctionalInterface
public interface SysfsWriter {

    void write(Path attribute, String value) throws IOException;

    SysfsWriter KERNEL = (attribute, value) -> Files.write(attribute, value.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE);
}
