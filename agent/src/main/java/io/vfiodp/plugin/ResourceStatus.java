package io.vfiodp.plugin;

import io.vfiodp.policy.ResourceName;
import java.nio.file.Path;

/**
 * How one resource stands, as the reconcile loop last saw it.
 *
 * @param serving     its gRPC server is up on {@code socket}
 * @param registered  the current kubelet accepted its registration
 * @param devices     devices advertised
 * @param healthy     of which healthy
 * @param openStreams ListAndWatch streams open
 */
public record ResourceStatus(ResourceName name, Path socket, boolean serving, boolean registered, int devices, int healthy, int openStreams) {}
