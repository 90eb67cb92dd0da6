package io.vfiodp.node;

import io.vfiodp.host.DevNodes;
import io.vfiodp.policy.DesiredState;
import java.util.Objects;

/**
 * What the plugin should serve, as one scan and policy pass decided it: the desired resources
 * and the {@code /dev} nodes that scan saw. Allocate needs the latter because iommufd nodes are
 * handed to a container only when they exist on the host.
 */
public record TargetState(DesiredState desired, DevNodes devNodes) {

    public static final TargetState EMPTY = new TargetState(DesiredState.EMPTY, DevNodes.NONE);

    public TargetState {
        Objects.requireNonNull(desired, "desired");
        Objects.requireNonNull(devNodes, "devNodes");
    }
}
