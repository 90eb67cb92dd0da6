package io.vfiodp.host.uevent;

import java.time.Duration;

/**
 * Where kernel uevents come from: the kernel's netlink socket ({@link UeventSocket}), or a fake
 * kernel in tests. One thread receives; any thread may {@link #wakeup()} it; the receiving thread
 * closes it after its last receive.
 */
public interface UeventSource extends AutoCloseable {

    /** Blocks until a message arrives or {@link #wakeup()} is called. */
    UeventReceipt receive();

    /** As {@link #receive()}, but {@link UeventReceipt.Idle} when nothing arrived within {@code maxWait}. */
    UeventReceipt receive(Duration maxWait);

    /** Makes the current or next receive return {@link UeventReceipt.Woken}; any thread. */
    void wakeup();

    @Override
    void close();
}
