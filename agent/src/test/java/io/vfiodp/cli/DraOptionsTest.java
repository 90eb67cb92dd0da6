package io.vfiodp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** {@code serve}'s {@code --dra-numa-form}: the operator's choice of how numaNode is published. */
class DraOptionsTest {

    private static DraOptions parsed(Map<String, String> env, String... args) {
        DraOptions options = new DraOptions();
        CommandLine cl = new CommandLine(CommandSpec.create().addMixin("dra", options.mixin()));
        cl.setDefaultValueProvider(new EnvDefaultProvider(env));
        cl.parseArgs(args);
        return options;
    }

    @Test
    void numaNodeIsAScalarUnlessTheListIsAskedFor() {
        assertThat(parsed(Map.of()).settings().numaList()).isFalse();
        assertThat(parsed(Map.of(), "--dra-numa-form", "list").settings().numaList()).isTrue();
        assertThat(parsed(Map.of("VFIO_DP_DRA_NUMA_FORM", "list")).settings().numaList()).isTrue();
        assertThat(parsed(Map.of("VFIO_DP_DRA_NUMA_FORM", "list"), "--dra-numa-form=scalar").settings().numaList()).isFalse();
    }

    @Test
    void anotherFormIsRefusedNamingTheOnesThereAre() {
        assertThatThrownBy(() -> parsed(Map.of(), "--dra-numa-form", "auto")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--dra-numa-form").hasMessageContaining("scalar, list");
    }
}
