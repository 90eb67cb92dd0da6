package io.vfiodp.doctor;

import io.vfiodp.host.PciFunction;
import io.vfiodp.policy.Decision;
import io.vfiodp.policy.DesiredResource;
import io.vfiodp.policy.ExposedDevice;
import io.vfiodp.policy.Health;
import io.vfiodp.policy.PolicyResult;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code passthrough}: what serve would offer VMs right now, under the configuration in force:
 * the healthy devices of every resource, device plugins and DRA alike. None at all is the one
 * verdict that makes the node unready whatever else is fine.
 */
final class PassthroughCheck implements Check {

    static final String ID = "passthrough";
    private static final int SHOWN = 4;

    @Override
    public List<Finding> run(NodeView node) {
        return List.of(Finding.of(ID, outcome(node)));
    }

    static int usable(PolicyResult policy) {
        int n = 0;
        for (DesiredResource r : policy.desiredState().resources().values()) {
            for (ExposedDevice d : r.devices()) if (d.health().isHealthy()) n++;
        }
        return n;
    }

    private static Outcome outcome(NodeView node) {
        PolicyResult policy = node.policy();
        List<String> resources = new ArrayList<>();
        List<String> why = new ArrayList<>();
        for (DesiredResource r : policy.desiredState().resources().values()) {
            int healthy = 0;
            for (ExposedDevice d : r.devices()) {
                if (d.health().isHealthy()) healthy++;
                else if (d.health() instanceof Health.Unhealthy(String reason)) why.add(d.id() + ": " + reason);
            }
            if (healthy > 0) resources.add(r.name().value() + " (" + healthy + ")");
        }
        int usable = usable(policy);
        if (usable > 0) return new Outcome.Ok(usable + " device" + (usable == 1 ? "" : "s") + " can be passed through: " + String.join(", ", resources));
        for (PciFunction f : node.candidates()) {
            if (policy.functions().get(f.address()) instanceof Decision.Skipped(String reason)) why.add(f.address() + ": " + reason);
        }
        String because;
        if (why.isEmpty()) {
            because = node.candidates().isEmpty() ? "no NVIDIA GPU or NVSwitch, and no pciHostDevices selector names a device here"
                    : "no device is exposed under the configuration in force (" + node.permittedFrom() + ")";
        } else {
            because = String.join("; ", why.subList(0, Math.min(SHOWN, why.size()))) + (why.size() > SHOWN ? "; and " + (why.size() - SHOWN) + " more" : "");
        }
        return new Outcome.Fail("no device can be passed through: " + because,
                Fix.advice("fix what the lines above say; `inventory` shows what serve decides for every device and why"));
    }
}
