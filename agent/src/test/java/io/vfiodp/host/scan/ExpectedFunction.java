package io.vfiodp.host.scan;

import io.vfiodp.host.PciAddress;
import io.vfiodp.host.PciFunction;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** Builds the {@link PciFunction} a test expects; unset parts take sysfs's "absent" values. */
final class ExpectedFunction {

    private final PciAddress address;
    private int vendor;
    private int device;
    private int subsystemVendor;
    private int subsystemDevice;
    private int classCode;
    private int revision;
    private Optional<String> driver = Optional.empty();
    private OptionalInt group = OptionalInt.empty();
    private int numa = -1;
    private boolean bootVga;
    private Optional<PciAddress> physfn = Optional.empty();
    private List<PciAddress> virtfns = List.of();
    private OptionalInt totalVfs = OptionalInt.empty();
    private Optional<String> cdev = Optional.empty();
    private List<PciAddress> bridges = List.of();
    private Optional<String> pcieRoot = Optional.empty();

    private ExpectedFunction(String address) {
        this.address = PciAddress.parse(address);
    }

    static ExpectedFunction fn(String address) {
        return new ExpectedFunction(address);
    }

    ExpectedFunction ids(int vendorId, int deviceId, int subVendor, int subDevice) {
        vendor = vendorId;
        device = deviceId;
        subsystemVendor = subVendor;
        subsystemDevice = subDevice;
        return this;
    }

    ExpectedFunction classAndRevision(int code, int rev) {
        classCode = code;
        revision = rev;
        return this;
    }

    ExpectedFunction driver(String name) {
        driver = Optional.of(name);
        return this;
    }

    ExpectedFunction group(int number) {
        group = OptionalInt.of(number);
        return this;
    }

    ExpectedFunction numa(int node) {
        numa = node;
        return this;
    }

    ExpectedFunction bootVga() {
        bootVga = true;
        return this;
    }

    ExpectedFunction physfn(String pf) {
        physfn = Optional.of(PciAddress.parse(pf));
        return this;
    }

    ExpectedFunction virtfns(String... vfs) {
        virtfns = Arrays.stream(vfs).map(PciAddress::parse).toList();
        return this;
    }

    ExpectedFunction totalVfs(int total) {
        totalVfs = OptionalInt.of(total);
        return this;
    }

    ExpectedFunction cdev(String name) {
        cdev = Optional.of(name);
        return this;
    }

    ExpectedFunction bridges(String... nearestFirst) {
        bridges = Arrays.stream(nearestFirst).map(PciAddress::parse).toList();
        return this;
    }

    /** Unset: the root the topmost bridge (or the function itself) sits on, as in every fixture's {@code devices/pciDDDD:BB}. */
    ExpectedFunction pcieRoot(String root) {
        pcieRoot = Optional.of(root);
        return this;
    }

    PciFunction build() {
        PciAddress top = bridges.isEmpty() ? address : bridges.getLast();
        Optional<String> root = pcieRoot.or(() -> Optional.of(String.format("pci%04x:%02x", top.domain(), top.bus())));
        return new PciFunction(address, vendor, device, subsystemVendor, subsystemDevice, classCode, revision, driver,
                group, numa, bootVga, physfn, virtfns, totalVfs, cdev, bridges, root);
    }
}
