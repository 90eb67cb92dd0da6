package io.vfiodp.serve;

/** Whether {@code serve} listens to kernel uevents ({@code --uevents}). */
public enum UeventMode {
    /** When {@code --sysfs-root} is a sysfs mount (the kernel's events describe it) and the kernel sends them to this process. */
    auto,
    /** Also when {@code --sysfs-root} is no sysfs mount (a copy of one, in tests and benchmarks); still only if the kernel sends them. */
    on,
    /** Never: the periodic full rescan and the {@code /dev/vfio} watch only. */
    off
}
