package io.vfiodp.kubevirt;

import java.util.List;

/** Stand-in for the policy's permitted-devices records until the policy branch is merged. */
public record PermittedDevices(List<Pci> pciHostDevices, List<Mdev> mediatedDevices) {
    public PermittedDevices {
        pciHostDevices = List.copyOf(pciHostDevices);
        mediatedDevices = List.copyOf(mediatedDevices);
    }

    public record Pci(String pciVendorSelector, String resourceName, boolean externalResourceProvider) {}

    public record Mdev(String mdevNameSelector, String resourceName, boolean externalResourceProvider) {}
}
