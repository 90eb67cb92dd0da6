package io.vfiodp.inventory;

import io.vfiodp.dra.DraSettings;
import io.vfiodp.dra.classes.ExtendedResourceClasses;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.host.vfio.VfioApiProbe;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.holders.Attribution;
import io.vfiodp.holders.HolderView;
import io.vfiodp.holders.OfferedDevice;
import io.vfiodp.holders.PodDetails;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.ScanPolicySource;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.config.ConfigSource;
import io.vfiodp.policy.config.LocalConfig;
import io.vfiodp.vgpu.LayoutReport;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The inventory, put together: pci.ids and the {@code --config} file read first (either one
 * unusable is the whole answer), then one scan and policy pass through {@link ScanPolicySource},
 * the pass serve makes, who holds each device it offers when asked ({@link HolderSource}), and the
 * report in the format asked for. Changes nothing on the host.
 */
public final class Inventory {

    /** What is printed. */
    public enum Format {
        /** One line per device, the resources and the problems; then the vGPU layout when the configuration has one. */
        TABLE,
        /** The stable document of {@link InventoryJson}. */
        JSON,
        /** A {@code permittedHostDevices} block exposing what the default policy exposes ({@link SuggestedConfig}). */
        SUGGESTED_CONFIG,
        /** The DeviceClasses with {@code spec.extendedResourceName} of the resources routed to DRA ({@link ExtendedResourceClasses}). */
        DEVICE_CLASSES
    }

    /**
     * What the inventory is asked for.
     *
     * @param pciIds     an explicit pci.ids file, else the newer of the system's copy and the bundled one, as serve chooses
     * @param config     the {@code --config} file, else the default policy; read even for {@link Format#SUGGESTED_CONFIG},
     *                   which suggests from the default policy
     * @param routing    the resources shown as served through DRA
     * @param nodeLabels this node's labels, for the layout's {@code nodeMediatedDeviceTypes}
     * @param driverName the DRA driver's name, which {@link Format#DEVICE_CLASSES} select and whose claims' devices are this node's
     * @param holders    where to ask who holds the devices (the command always asks); empty: the table has no HOLDER column
     */
    public record Options(Path sysfsRoot, Path devRoot, Optional<Path> pciIds, Optional<Path> config, Format format, DraRouting routing,
                          Map<String, String> nodeLabels, String driverName, Optional<HolderSource> holders) {
        public Options {
            Objects.requireNonNull(sysfsRoot, "sysfsRoot");
            Objects.requireNonNull(devRoot, "devRoot");
            Objects.requireNonNull(pciIds, "pciIds");
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(format, "format");
            Objects.requireNonNull(routing, "routing");
            nodeLabels = Map.copyOf(nodeLabels);
            Objects.requireNonNull(driverName, "driverName");
            Objects.requireNonNull(holders, "holders");
        }

        /** With the default DRA driver name, not asking who holds the devices. */
        public Options(Path sysfsRoot, Path devRoot, Optional<Path> pciIds, Optional<Path> config, Format format, DraRouting routing,
                       Map<String, String> nodeLabels) {
            this(sysfsRoot, devRoot, pciIds, config, format, routing, nodeLabels, DraSettings.DEFAULT_DRIVER, Optional.empty());
        }

        /** These options, asking {@code source} who holds the devices. */
        public Options withHolders(HolderSource source) {
            return new Options(sysfsRoot, devRoot, pciIds, config, format, routing, nodeLabels, driverName, Optional.of(source));
        }
    }

    /**
     * Who holds the devices, asked once: the kubelet's PodResources, and the pods' VMIs where an API is at hand.
     *
     * @param pods the pods of this node as the API lists them, or why they are not known
     */
    public record HolderSource(Supplier<PodResourcesReading> podResources, Supplier<PodDetails> pods) {
        public HolderSource {
            Objects.requireNonNull(podResources, "podResources");
            Objects.requireNonNull(pods, "pods");
        }
    }

    /** What one inventory gave. */
    public sealed interface Outcome {
        /**
         * @param text       what to print
         * @param evaluation the pass it shows: what the node exposes under that configuration
         */
        record Printed(String text, ScanPolicySource.Evaluation evaluation) implements Outcome {}

        /** pci.ids or the configuration file cannot be used; {@code reason} names the file. */
        record Failed(String reason) implements Outcome {}
    }

    /** How long the command waits for the kubelet's PodResources to answer. */
    public static final Duration POD_RESOURCES_TIMEOUT = Duration.ofSeconds(5);

    private Inventory() {}

    public static Outcome run(Options options) {
        Optional<String> badDriver = DraSettings.driverNameProblem(options.driverName());
        if (options.format() == Format.DEVICE_CLASSES && badDriver.isPresent()) return new Outcome.Failed(badDriver.get());
        PciIds pciIds;
        try {
            pciIds = PciIds.load(options.pciIds());
        } catch (IOException e) {
            return new Outcome.Failed(e.getMessage());
        }
        ConfigSource.Current config;
        try {
            config = new LocalConfig(options.config(), options::nodeLabels).current();
        } catch (IllegalStateException e) {
            return new Outcome.Failed(e.getMessage());
        }
        ConfigSource.Current evaluated = options.format() == Format.SUGGESTED_CONFIG ? ConfigSource.Current.DEFAULT_POLICY : config;
        ScanPolicySource.Evaluation pass = new ScanPolicySource(new SysfsScanner(options.sysfsRoot(), options.devRoot())::scan,
                () -> evaluated, pciIds).evaluate();
        return new Outcome.Printed(text(options, pass, pciIds), pass);
    }

    /**
     * The DeviceClasses the resources this node routes to DRA need, from the pass serve makes: what
     * serve checks the API for, to be applied once per cluster (the agent has no right to write them).
     */
    private static String deviceClasses(Options options, ScanPolicySource.Evaluation pass) {
        var routed = options.routing().split(pass.result().desiredState()).dra().resources().keySet();
        String header = "DeviceClasses with spec.extendedResourceName for the resources this node serves through DRA: a pod asking"
                + "\none of these extended resources (as virt-launcher's does for a VMI's gpus[].deviceName) gets driver "
                + options.driverName() + "'s\ndevices of it. Apply once per cluster: vfio-device-plugin inventory --dra-resources="
                + options.routing() + " --device-classes | kubectl apply -f -";
        if (routed.isEmpty()) header += "\nNo resource of this node goes through DRA with --dra-resources=" + options.routing() + ".";
        return ExtendedResourceClasses.yaml(options.driverName(), ExtendedResourceClasses.of(options.driverName(), routed), header);
    }

    /** Every device the policy exposes, on the side {@code routing} sends its resource. */
    private static List<OfferedDevice> offered(DesiredState desired, DraRouting routing) {
        List<OfferedDevice> out = new ArrayList<>();
        for (DesiredResource r : desired.resources().values()) {
            for (ExposedDevice d : r.devices()) out.add(OfferedDevice.of(d, r.name(), routing.route(r.name())));
        }
        return out;
    }

    private static String text(Options options, ScanPolicySource.Evaluation pass, PciIds pciIds) {
        if (options.format() == Format.SUGGESTED_CONFIG) return SuggestedConfig.yaml(pass.snapshot(), pass.result(), pciIds);
        if (options.format() == Format.DEVICE_CLASSES) return deviceClasses(options, pass);
        InventoryReport report = InventoryReport.of(pass.snapshot(), pass.result(), pciIds, options.config().map(Path::toString),
                pass.configWarnings(), options.routing());
        // Only /dev/vfio/vfio is opened, never a group node: that would take the group from a running VM.
        Optional<VfioAvailability> vfio = Optional.of(VfioApiProbe.probe(options.devRoot()));
        Optional<HolderView> holders = options.holders().map(h -> Attribution.of(h.podResources().get(), h.pods().get(),
                offered(pass.result().desiredState(), options.routing()), options.driverName()));
        if (options.format() == Format.JSON) return InventoryJson.format(report, vfio, holders);
        String table = InventoryText.format(report, vfio, holders);
        if (pass.layout() instanceof ConfigSource.LayoutSetting.Desired layout) {
            table += "\n" + LayoutReport.table(pass.snapshot(), layout.types());
        }
        return table;
    }
}
