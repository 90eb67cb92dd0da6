package io.vfiodp.cli;

/** Where the permitted host devices come from. */
public enum KubeVirtMode {
    /** The KubeVirt CR when the cluster has one; for now the same as {@link #off}. */
    auto,
    /** Only {@code --config} (or the default NVIDIA naming without it). */
    off
}
