package io.vfiodp.cli;

import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code --proc-root}: the tree that plays {@code /proc}, for the kernel command line and
 * {@code /proc/interrupts}. A pod's own {@code /proc} shows both as the host has them, so no
 * mount is needed. Built through picocli's API: it is on serve's path (see {@link ServeCommand}).
 */
final class ProcRootOption {

    private final OptionSpec procRoot = OptionSpec.builder("--proc-root").type(Path.class).defaultValue("/proc").paramLabel("DIR")
            .description("Directory that plays /proc, for the kernel command line and interrupt remapping (default: ${DEFAULT-VALUE};"
                    + " env VFIO_DP_PROC_ROOT).")
            .build();

    /** The option, to be added to a command as a mixin. */
    CommandSpec mixin() {
        return CommandSpec.wrapWithoutInspection(this).addOption(procRoot);
    }

    Path procRoot() {
        return procRoot.getValue();
    }
}
