package io.vfiodp.cli;

import io.vfiodp.policy.DraRouting;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.TypeConversionException;

/** Which resources go through DRA: {@code serve} runs the DRA driver for them, {@code inventory} shows the route. */
final class DraRoutingOption {

    private final OptionSpec routing = OptionSpec.builder("--dra-resources").type(DraRouting.class).defaultValue("none")
            .paramLabel("none|all|NAME[,NAME...]").converters(new Converter())
            .description("Resources served through Dynamic Resource Allocation (this plugin's DRA driver: ResourceSlices, claims prepared"
                    + " into CDI devices) instead of a device plugin: none, all, or resource names separated by commas. A resource goes"
                    + " one way as a whole, so no device is offered twice (default: ${DEFAULT-VALUE}; env VFIO_DP_DRA_RESOURCES).")
            .build();

    /** The option, to be added to a command as a mixin. */
    CommandSpec mixin() {
        return CommandSpec.wrapWithoutInspection(this).addOption(routing);
    }

    DraRouting routing() {
        return routing.getValue();
    }

    static final class Converter implements ITypeConverter<DraRouting> {
        @Override
        public DraRouting convert(String value) {
            try {
                return DraRouting.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
