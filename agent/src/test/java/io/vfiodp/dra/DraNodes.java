package io.vfiodp.dra;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.node.TargetState;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DraOffer;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.PolicyEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The fixture nodes as the DRA driver is fed them, and driver settings in a test's directory. */
public final class DraNodes {

    static final String DRIVER = "vfio-device-plugin.io";
    static final String NODE = "node-a";

    private DraNodes() {}

    static HostSnapshot scan(String node) {
        return new SysfsScanner(SysfsFixtures.sys(node), SysfsFixtures.dev(node)).scan();
    }

    /** What scan and policy give for the fixture node, every resource routed as {@code routing} says. */
    public static TargetState state(String node, DraRouting routing) {
        return state(scan(node), routing);
    }

    /** What the policy gives for a scanned node, every resource routed as {@code routing} says. */
    static TargetState state(HostSnapshot s, DraRouting routing) {
        PciIds ids = pciIds();
        DraRouting.Split split = routing.split(PolicyEngine.evaluate(s, Optional.empty(), ids).desiredState());
        return new TargetState(split.devicePlugins(), s.devNodes(), DraOffer.describe(split.dra(), s, ids, DraOffer.EMPTY));
    }

    /**
     * {@code state} with device {@code id} (PCI address or mdev UUID) of its DRA part set to
     * {@code health}, as a later scan would find it (a group node gone, a driver unbound).
     */
    public static TargetState withHealth(TargetState state, String id, Health health) {
        List<DesiredResource> resources = new ArrayList<>();
        for (DesiredResource r : state.dra().resources().resources().values()) {
            resources.add(new DesiredResource(r.name(), r.kind(), r.devices().stream()
                    .map(d -> d.id().equals(id) ? d.withHealth(health) : d).toList()));
        }
        return new TargetState(state.plugins(), state.devNodes(), new DraOffer(DesiredState.of(resources), state.dra().profiles()));
    }

    public static TargetState allDra(String node) {
        return state(node, DraRouting.ALL);
    }

    static PciIds pciIds() {
        try {
            return PciIds.bundled();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Settings with every directory under {@code root} and short periods. */
    static DraSettings settings(Path root) {
        return DraSettings.defaults(DRIVER, NODE)
                .withDirs(root.resolve("plugins_registry"), root.resolve("plugins").resolve(DRIVER), root.resolve("cdi"))
                .withPeriods(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMinutes(5));
    }
}
