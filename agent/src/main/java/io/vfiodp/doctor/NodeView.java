package io.vfiodp.doctor;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.KernelFacts;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import io.vfiodp.host.Reading;
import io.vfiodp.host.ResetSupport;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.kube.kubevirt.KubeVirtCrReading;
import io.vfiodp.policy.PolicyResult;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything the checks look at, read once: the checks are pure functions of it.
 *
 * @param roots       the trees that played {@code /sys}, {@code /dev} and {@code /proc}, to name files by
 * @param vfio        what {@code /dev/vfio/vfio} answered; unreadable when it could not be asked
 * @param pciIds      where device names came from ({@link io.vfiodp.host.PciIds.Origin#describe()}), or why none could be read
 * @param policy      what serve would serve, under the configuration in force ({@code permittedFrom})
 * @param permittedFrom where the permitted devices came from: the KubeVirt CR, the {@code --config} file, or the default policy
 * @param candidates  the devices doctor examines one by one: NVIDIA GPUs and NVSwitches (not VFs), and
 *                    what a {@code pciHostDevices} selector names
 * @param resets      the reset support of each candidate
 * @param kubevirt    the KubeVirt CR as read once; empty where nobody asked (serve follows it itself)
 */
public record NodeView(
        Roots roots,
        KernelFacts kernel,
        HostSnapshot host,
        Reading<VfioAvailability> vfio,
        ConfigStatus config,
        Reading<String> pciIds,
        PolicyResult policy,
        String permittedFrom,
        List<PciFunction> candidates,
        SortedMap<PciAddress, ResetSupport> resets,
        KubeletFacts kubelet,
        Optional<KubeVirtCrReading> kubevirt) {

    /** Where {@code /sys}, {@code /dev} and {@code /proc} were read from. */
    public record Roots(Path sys, Path dev, Path proc) {
        public Roots {
            Objects.requireNonNull(sys, "sys");
            Objects.requireNonNull(dev, "dev");
            Objects.requireNonNull(proc, "proc");
        }

        /** {@code relative} below the sysfs root, as files are named to an operator. */
        String sys(String relative) {
            return sys.resolve(relative).toString();
        }
    }

    public NodeView {
        Objects.requireNonNull(roots, "roots");
        Objects.requireNonNull(kernel, "kernel");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(vfio, "vfio");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(pciIds, "pciIds");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(permittedFrom, "permittedFrom");
        candidates = List.copyOf(candidates);
        resets = Collections.unmodifiableSortedMap(new TreeMap<>(resets));
        Objects.requireNonNull(kubelet, "kubelet");
        Objects.requireNonNull(kubevirt, "kubevirt");
    }

    /** Whether the kernel has the vfio-pci driver registered (loaded or built in). */
    boolean vfioPciRegistered() {
        return kernel.pciDrivers().known().map(d -> d.contains("vfio-pci")).orElse(false);
    }
}
