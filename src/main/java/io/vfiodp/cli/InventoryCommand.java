package io.vfiodp.cli;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.host.vfio.VfioApiCheck;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.inventory.InventoryJson;
import io.vfiodp.inventory.InventoryReport;
import io.vfiodp.inventory.InventoryText;
import io.vfiodp.inventory.SuggestedConfig;
import io.vfiodp.policy.PolicyEngine;
import io.vfiodp.policy.PolicyResult;
import io.vfiodp.policy.config.ConfigFile;
import io.vfiodp.policy.config.InvalidConfigException;
import io.vfiodp.policy.config.MdevTypesForNode;
import io.vfiodp.vgpu.LayoutReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "inventory",
        mixinStandardHelpOptions = true,
        description = {
            "Scans the host and prints, device by device, what the plugin would expose and under which resource name,"
                    + " or why not; then the resources, scan problems and configuration problems.",
            "Changes nothing on the host."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:printed (scan and configuration problems are part of the output)",
            "1:the pci.ids database or the --config file cannot be used",
            "2:invalid command line"
        })
public final class InventoryCommand implements Callable<Integer> {

    final HostOptions host = new HostOptions();

    @ArgGroup(exclusive = true)
    Output output;

    static final class Output {
        @Option(names = "--json", required = true, description = "Print a stable JSON document instead of the table.")
        boolean json;

        @Option(names = "--suggest-config", required = true,
                description = "Print a permittedHostDevices YAML block that, given back with --config, exposes what the"
                        + " default policy exposes on this host.")
        boolean suggestConfig;
    }

    final DraRoutingOption dra = new DraRoutingOption();

    @Option(names = "--node-label", paramLabel = "KEY=VALUE",
            description = "A label of this node, to resolve nodeMediatedDeviceTypes of the --config file's"
                    + " mediatedDevicesConfiguration for the vGPU layout section (repeatable).")
    Map<String, String> nodeLabels = new LinkedHashMap<>();

    @Spec
    CommandSpec spec;

    /** The command's model: its annotations, and the mixins {@code host} and {@code dra} it shares with serve, built through picocli's API. */
    CommandSpec commandSpec() {
        return CommandSpec.forAnnotatedObject(this).addMixin("host", host.mixin()).addMixin("dra", dra.mixin());
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PciIds pciIds;
        Optional<ConfigFile.Loaded> config;
        try {
            pciIds = PciIds.load(host.pciIds());
            config = host.config().isPresent() ? Optional.of(ConfigFile.read(host.config().get())) : Optional.empty();
        } catch (IOException | InvalidConfigException e) {
            err.println("inventory: " + e.getMessage());
            err.flush();
            return 1;
        }
        HostSnapshot snapshot = new SysfsScanner(host.sysfsRoot(), host.devRoot()).scan();
        if (output != null && output.suggestConfig) {
            out.print(SuggestedConfig.yaml(snapshot, PolicyEngine.evaluate(snapshot, Optional.empty(), pciIds), pciIds));
            out.flush();
            return 0;
        }
        PolicyResult result = PolicyEngine.evaluate(snapshot, config.flatMap(ConfigFile.Loaded::permittedHostDevices), pciIds);
        InventoryReport report = InventoryReport.of(snapshot, result, pciIds, host.config().map(Object::toString),
                config.map(ConfigFile.Loaded::warnings).orElse(List.of()), dra.routing());
        boolean json = output != null && output.json;
        // Only /dev/vfio/vfio is opened, never a group node: that would take the group from a running VM.
        Optional<VfioAvailability> vfio = Optional.of(VfioApiCheck.check(host.devRoot()));
        out.print(json ? InventoryJson.format(report, vfio) : InventoryText.format(report, vfio));
        if (!json) {
            config.flatMap(ConfigFile.Loaded::mediatedDevicesConfiguration).ifPresent(layout -> {
                out.println();
                out.print(LayoutReport.table(snapshot, MdevTypesForNode.resolve(layout, nodeLabels)));
            });
        }
        out.flush();
        return 0;
    }
}
