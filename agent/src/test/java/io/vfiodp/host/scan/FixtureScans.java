package io.vfiodp.host.scan;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.fixtures.SysfsFixtures;
import java.util.Arrays;
import java.util.List;

/** Scans of the committed fixture nodes, and shorthands for asserting on them. */
final class FixtureScans {

    private FixtureScans() {}

    static HostSnapshot scan(String node) {
        return new SysfsScanner(SysfsFixtures.sys(node), SysfsFixtures.dev(node)).scan();
    }

    static PciAddress pci(String address) {
        return PciAddress.parse(address);
    }

    static List<PciAddress> pcis(String... addresses) {
        return Arrays.stream(addresses).map(PciAddress::parse).toList();
    }
}
