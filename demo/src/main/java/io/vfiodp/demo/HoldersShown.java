package io.vfiodp.demo;

import io.vfiodp.holders.PodDetails;
import io.vfiodp.inventory.Inventory;
import io.vfiodp.kubelet.PodResourcesClient;
import io.vfiodp.policy.DraRouting;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The demo's "who holds which device", once the VMs' pods run: serve's {@code vfio_dp_device_holder_info}
 * (serve reads the kubelet's PodResources a moment after each Allocate) and what
 * {@code inventory --pod-resources-socket} prints, both from the kit's PodResources. The demo's
 * device-plugin part has no Kubernetes API, so the VMIs are not known: the pods are.
 */
final class HoldersShown {

    private static final String NO_API = "the demo's device-plugin part runs without a Kubernetes API";

    private final PrintWriter out;
    private final Duration wait;

    HoldersShown(PrintWriter out, Duration wait) {
        this.out = out;
        this.wait = wait;
    }

    /** @param metricsPort serve's endpoints, when the demo may ask its /metrics */
    void print(Path node, Path podResources, OptionalInt metricsPort) throws IOException, InterruptedException {
        out.println();
        out.println("== Who holds which device now: the kubelet's PodResources (the kit's, on " + podResources + ") lists the VMs' pods");
        if (metricsPort.isPresent()) {
            List<String> series = awaitSeries(metricsPort.getAsInt());
            out.println("  GET /metrics  " + series.size() + " vfio_dp_device_holder_info series (serve read PodResources after the Allocate):");
            for (String line : series) out.println("    " + line);
        }
        out.println("  inventory --pod-resources-socket " + podResources + " prints:");
        try (PodResourcesClient kubelet = new PodResourcesClient(podResources, Inventory.POD_RESOURCES_TIMEOUT)) {
            Inventory.Options options = new Inventory.Options(node.resolve("sys"), node.resolve("dev"), Optional.empty(), Optional.empty(),
                    Inventory.Format.TABLE, DraRouting.NONE, Map.of()).withHolders(new Inventory.HolderSource(kubelet::read,
                    () -> new PodDetails.Unknown(NO_API)));
            switch (Inventory.run(options)) {
                case Inventory.Outcome.Printed printed -> printed.text().lines().forEach(l -> out.println("    " + l));
                case Inventory.Outcome.Failed failed -> throw new IOException("inventory of the demo node: " + failed.reason());
            }
        }
    }

    /** serve's holder series once it has read PodResources after the allocations (it reads a moment after each). */
    private List<String> awaitSeries(int port) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            List<String> series = DemoRun.get(port, "/metrics").body().lines().filter(l -> l.startsWith("vfio_dp_device_holder_info{")).toList();
            if (!series.isEmpty() || System.nanoTime() > deadline) return series;
            Thread.sleep(50);
        }
    }
}
