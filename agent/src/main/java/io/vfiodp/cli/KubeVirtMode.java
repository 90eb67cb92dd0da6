package io.vfiodp.cli;

/** Where the permitted host devices come from. */
public enum KubeVirtMode {
    /** The KubeVirt CR's permittedHostDevices, followed live, while the cluster has them; else as {@link #off}. */
    auto,
    /** Only {@code --config} (or the default NVIDIA naming without it); no Kubernetes API calls. */
    off
}
