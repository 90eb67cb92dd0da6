package io.vfiodp.host.uevent;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fake kernel's uevent socket: what tests {@link #send} is received in order. Waits are real
 * (a blocking queue's), so a watch that coalesces bursts sees what was sent together as one.
 */
public final class UeventQueue implements UeventSource {

    private final BlockingQueue<UeventReceipt> queue = new LinkedBlockingQueue<>();
    private final AtomicLong seqnum = new AtomicLong(1000);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicLong blockingReceives = new AtomicLong();
    private final AtomicLong eventsReceived = new AtomicLong();
    private volatile String failure;

    /** One event as the kernel would send it: ACTION, DEVPATH, SUBSYSTEM, SEQNUM and {@code more}. */
    public Uevent event(String action, String devpath, String subsystem, Map<String, String> more) {
        long n = seqnum.incrementAndGet();
        Map<String, String> properties = new TreeMap<>(more);
        properties.put("ACTION", action);
        properties.put("DEVPATH", devpath);
        properties.put("SUBSYSTEM", subsystem);
        properties.put("SEQNUM", Long.toString(n));
        return new Uevent(action, devpath, subsystem, n, new TreeMap<>(properties));
    }

    /** Sends the events, in order, at once. */
    public void send(Uevent... events) {
        for (Uevent e : events) queue.add(new UeventReceipt.Event(e));
    }

    /** Reports that the receive buffer overflowed. */
    public void overflow() {
        queue.add(new UeventReceipt.Overflow());
    }

    /** The next receive fails as a broken socket's would. */
    public void fail(String why) {
        failure = why;
        queue.add(new UeventReceipt.Woken());
    }

    public boolean closed() {
        return closed.get();
    }

    /** How often a receiver waited without a time limit: it does between bursts, so a burst's end shows here. */
    public long blockingReceives() {
        return blockingReceives.get();
    }

    /** How many events a receiver has taken: a clock a test can advance by what the receiver reads. */
    public long eventsReceived() {
        return eventsReceived.get();
    }

    @Override
    public UeventReceipt receive() {
        blockingReceives.incrementAndGet();
        try {
            return check(queue.take());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new UeventReceipt.Woken();
        }
    }

    @Override
    public UeventReceipt receive(Duration maxWait) {
        try {
            UeventReceipt r = queue.poll(maxWait.toNanos(), TimeUnit.NANOSECONDS);
            return r == null ? check(new UeventReceipt.Idle()) : check(r);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new UeventReceipt.Woken();
        }
    }

    private UeventReceipt check(UeventReceipt r) {
        if (closed.get()) throw new IllegalStateException("uevent socket is closed");
        if (failure != null) throw new IllegalStateException(failure);
        if (r instanceof UeventReceipt.Event) eventsReceived.incrementAndGet();
        return r;
    }

    @Override
    public void wakeup() {
        if (!closed.get()) queue.add(new UeventReceipt.Woken());
    }

    @Override
    public void close() {
        closed.set(true);
    }
}
