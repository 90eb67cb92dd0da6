package io.vfiodp.demo;

import io.vfiodp.libvirt.DeviceRequest;
import io.vfiodp.libvirt.HostdevPlanner;
import io.vfiodp.libvirt.HostdevXml;
import io.vfiodp.libvirt.KubeVirtRelease;
import io.vfiodp.libvirt.LauncherEnv;
import io.vfiodp.libvirt.PlanOutcome;
import io.vfiodp.libvirt.VgpuDisplay;
import io.vfiodp.libvirt.VmiDevices;
import io.vfiodp.libvirt.XmlOutcome;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * Prints the libvirt {@code <hostdev>} elements the allocation turns into, as the launcher helper
 * writes them for a VMI that asks for each allocated device as a {@code gpus[]} entry
 * ({@code gpu0}, {@code gpu1}, …), companion functions attached.
 */
final class HostdevXmlPrinter implements AllocationPrinter {

    private final HostdevPlanner planner = new HostdevPlanner();
    private final HostdevXml xml = new HostdevXml();

    @Override
    public void print(DemoAllocation allocation, PrintWriter out) {
        List<DeviceRequest> gpus = IntStream.range(0, allocation.deviceIds().size())
                .mapToObj(i -> new DeviceRequest(DeviceRequest.Section.GPUS, i, "gpu" + i, allocation.resource().value(),
                        new VgpuDisplay.Unspecified()))
                .toList();
        PlanOutcome plan = planner.plan(LauncherEnv.of(allocation.response().getEnvsMap()),
                Optional.of(new VmiDevices(gpus, Optional.of(true), List.of(), "", Optional.empty())), true, KubeVirtRelease.newest());
        XmlOutcome written = switch (plan) {
            case PlanOutcome.Failed f -> new XmlOutcome.Refused(f.problems());
            case PlanOutcome.Planned p -> xml.elements(p.hostdevs());
        };
        switch (written) {
            case XmlOutcome.Refused r -> r.problems().forEach(problem -> out.println("    hostdev  cannot be written: " + problem));
            case XmlOutcome.Written w -> {
                out.println("    libvirt  what virt-launcher writes for gpus " + gpus.stream().map(DeviceRequest::name).toList()
                        + " (companions on their GPU's guest slot):");
                w.xml().lines().forEach(line -> out.println("      " + line));
            }
        }
    }
}
