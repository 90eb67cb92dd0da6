package io.vfiodp.policy;

import java.util.Optional;

/** Reading a policy result the way tests ask about it: by device. */
public final class PolicyResults {

    private PolicyResults() {}

    /** The exposed device with this ID (PCI address or mdev UUID), as a resource advertises it. */
    public static Optional<ExposedDevice> exposed(PolicyResult result, String id) {
        for (DesiredResource r : result.desiredState().resources().values()) {
            for (ExposedDevice d : r.devices()) {
                if (d.id().equals(id)) return Optional.of(d);
            }
        }
        return Optional.empty();
    }
}
