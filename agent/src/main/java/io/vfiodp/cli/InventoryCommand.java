package io.vfiodp.cli;

import io.vfiodp.dra.DraSettings;
import io.vfiodp.inventory.Inventory;
import io.vfiodp.kube.KubeApiDetection;
import io.vfiodp.kube.KubeClients;
import io.vfiodp.kube.PodsOnNode;
import io.vfiodp.kubelet.PodResourcesClient;
import java.nio.file.Path;
import java.util.Optional;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
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
                    + " or why not, and who holds it (pod and VM, from the kubelet's PodResources and, with a Kubernetes API, the"
                    + " pods of this node); then the resources, scan problems and configuration problems.",
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

        @Option(names = "--device-classes", required = true,
                description = "Print the DeviceClasses with spec.extendedResourceName that the resources routed to DRA by --dra-resources"
                        + " need (one per resource, selecting the driver's devices of it), for kubectl apply -f -: a pod asking"
                        + " such an extended resource then gets it through DRA. serve only reads them.")
        boolean deviceClasses;
    }

    @Option(names = "--dra-driver-name", paramLabel = "NAME", defaultValue = DraSettings.DEFAULT_DRIVER,
            description = "The DRA driver's name, which the --device-classes select (default: ${DEFAULT-VALUE}; env VFIO_DP_DRA_DRIVER_NAME).")
    String draDriverName;

    final DraRoutingOption dra = new DraRoutingOption();

    @Option(names = "--node-label", paramLabel = "KEY=VALUE",
            description = "A label of this node, to resolve nodeMediatedDeviceTypes of the --config file's"
                    + " mediatedDevicesConfiguration for the vGPU layout section (repeatable).")
    Map<String, String> nodeLabels = new LinkedHashMap<>();

    @Option(names = "--node-name", paramLabel = "NAME",
            description = "This node's name: with a Kubernetes API (in a pod, or a kubeconfig), the pods of this node are read for the VMIs"
                    + " and VMs that hold its devices (default: env NODE_NAME; env VFIO_DP_NODE_NAME).")
    String nodeName;

    final PodResourcesOption podResources = new PodResourcesOption();

    @Spec
    CommandSpec spec;

    /**
     * The command's model: its annotations, and the mixins {@code host}, {@code dra} and {@code podResources} it shares with serve,
     * built through picocli's API.
     */
    CommandSpec commandSpec() {
        return CommandSpec.forAnnotatedObject(this).addMixin("host", host.mixin()).addMixin("dra", dra.mixin())
                .addMixin("podResources", podResources.mixin());
    }

    @Override
    public Integer call() {
        Inventory.Format format = output == null ? Inventory.Format.TABLE
                : output.json ? Inventory.Format.JSON : output.suggestConfig ? Inventory.Format.SUGGESTED_CONFIG : Inventory.Format.DEVICE_CLASSES;
        Inventory.Options options = new Inventory.Options(host.sysfsRoot(), host.devRoot(), host.pciIds(), host.config(),
                format, dra.routing(), nodeLabels, draDriverName, Optional.empty());
        Inventory.Outcome outcome;
        try (PodResourcesClient kubelet = new PodResourcesClient(podResources.socket(), Inventory.POD_RESOURCES_TIMEOUT)) {
            Optional<String> api = KubeApiDetection.source(System.getenv(), Path.of(System.getProperty("user.home")));
            Optional<String> node = Optional.ofNullable(nodeName).filter(n -> !n.isBlank());
            outcome = Inventory.run(options.withHolders(new Inventory.HolderSource(kubelet::read,
                    () -> PodsOnNode.readOnce(api, node, KubeClients::standard))));
        }
        return switch (outcome) {
            case Inventory.Outcome.Printed printed -> {
                PrintWriter out = spec.commandLine().getOut();
                out.print(printed.text());
                out.flush();
                yield 0;
            }
            case Inventory.Outcome.Failed failed -> {
                PrintWriter err = spec.commandLine().getErr();
                err.println("inventory: " + failed.reason());
                err.flush();
                yield 1;
            }
        };
    }
}
