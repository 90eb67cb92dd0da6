package io.vfiodp.cli;

import io.vfiodp.policy.DraRouting;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** Which resources go through DRA: {@code serve} runs the DRA driver for them, {@code inventory} shows the route. */
final class DraRoutingOption {

    @Option(names = "--dra-resources", defaultValue = "none", paramLabel = "none|all|NAME[,NAME...]", converter = Converter.class,
            description = "Resources served through Dynamic Resource Allocation (this plugin's DRA driver: ResourceSlices, claims prepared"
                    + " into CDI devices) instead of a device plugin: none, all, or resource names separated by commas. A resource goes"
                    + " one way as a whole, so no device is offered twice (default: ${DEFAULT-VALUE}; env VFIO_DP_DRA_RESOURCES).")
    DraRouting routing;

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
