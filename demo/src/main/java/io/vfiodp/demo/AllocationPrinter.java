package io.vfiodp.demo;

import java.io.PrintWriter;

/**
 * One way the demo shows an allocation. The demo runs every printer it is given, in order, on
 * every allocation: a later step (the libvirt {@code <hostdev>} XML virt-launcher would write)
 * is one more implementation in {@link DemoRun#DEFAULT_PRINTERS}.
 */
@FunctionalInterface
public interface AllocationPrinter {
    void print(DemoAllocation allocation, PrintWriter out);
}
