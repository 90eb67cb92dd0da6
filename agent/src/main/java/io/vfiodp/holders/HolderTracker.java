package io.vfiodp.holders;

import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.triggers.Worker;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Keeps the {@link HolderView}: the one writer of it, on a thread of its own, since a PodResources
 * read may take up to its timeout and must hold up neither the kubelet's calls nor the passes.
 * It reads PodResources when what the node offers changes (a device's health included), a moment
 * after an allocation, a prepare or a pod change ({@link #refreshSoon()}: a burst costs one read),
 * and every {@link #PERIOD} for what nothing announces (a pod that ended where no API tells). Each
 * new view goes to {@code published}, and what it means for the pods' health notices to
 * {@code notices}; both must return at once. Readers get the last view from {@link #view()}.
 */
public final class HolderTracker implements AutoCloseable {

    /**
     * How long after an allocation or a prepare the kubelet is read: it records the devices it
     * asked for right after our answer, and the pod changes that follow come within the same wait.
     */
    public static final Duration SETTLE = Duration.ofSeconds(1);
    /**
     * The slow read that catches what no trigger announces (a pod that ended where no API tells), as
     * seldom as the full rescan with uevents: each read costs a connection to the kubelet, which
     * ServeBench's idle figure showed at one a minute.
     */
    public static final Duration PERIOD = Duration.ofMinutes(5);

    private final Supplier<PodResourcesReading> podResources;
    private final Supplier<PodDetails> pods;
    private final String driver;
    private final Consumer<HolderView> published;
    private final Consumer<List<HealthNotices.Notice>> notices;
    private final Duration settle;
    private final Worker worker;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile HolderView view = HolderView.EMPTY;
    // confined to the worker
    private List<OfferedDevice> offered = List.of();
    private Set<HealthNotices.Told> told = Set.of();

    private HolderTracker(Supplier<PodResourcesReading> podResources, Supplier<PodDetails> pods, String driver,
                          Consumer<HolderView> published, Consumer<List<HealthNotices.Notice>> notices, Duration settle, String thread) {
        this.podResources = Objects.requireNonNull(podResources, "podResources");
        this.pods = Objects.requireNonNull(pods, "pods");
        this.driver = Objects.requireNonNull(driver, "driver");
        this.published = Objects.requireNonNull(published, "published");
        this.notices = Objects.requireNonNull(notices, "notices");
        this.settle = settle;
        this.worker = Worker.start(thread);
    }

    /**
     * Starts the thread and its periodic read; nothing is read before the first {@link #offered}.
     *
     * @param driver the DRA driver's name, whose claims' devices are this node's
     */
    public static HolderTracker start(Supplier<PodResourcesReading> podResources, Supplier<PodDetails> pods, String driver,
                                      Consumer<HolderView> published, Consumer<List<HealthNotices.Notice>> notices) {
        return start(podResources, pods, driver, published, notices, SETTLE, PERIOD);
    }

    /** As above, with a settle time and period of the caller's (tests). */
    public static HolderTracker start(Supplier<PodResourcesReading> podResources, Supplier<PodDetails> pods, String driver,
                                      Consumer<HolderView> published, Consumer<List<HealthNotices.Notice>> notices, Duration settle,
                                      Duration period) {
        HolderTracker t = new HolderTracker(podResources, pods, driver, published, notices, settle, "vfio-dp-holders");
        t.worker.every(period, t::read);
        return t;
    }

    /** What the node offers now, from the pass's thread; read again when it changed. Returns at once. */
    public void offered(List<OfferedDevice> devices) {
        List<OfferedDevice> now = List.copyOf(devices);
        worker.offer(() -> {
            if (now.equals(offered)) return;
            offered = now;
            read();
        });
    }

    /** Something may have changed who holds what (an allocation, a prepare, a pod): a read follows shortly. From any thread, never blocks. */
    public void refreshSoon() {
        if (!scheduled.compareAndSet(false, true)) return;
        try {
            worker.schedule(() -> {
                scheduled.set(false);
                read();
            }, settle);
        } catch (RejectedExecutionException closed) {
            scheduled.set(false);
        }
    }

    /** The last view. */
    public HolderView view() {
        return view;
    }

    private void read() {
        HolderView next = Attribution.of(podResources.get(), pods.get(), offered, driver);
        HealthNotices.Step step = HealthNotices.next(told, next);
        told = step.told();
        view = next;
        published.accept(next);
        if (!step.notices().isEmpty()) notices.accept(step.notices());
    }

    @Override
    public void close() {
        worker.close();
    }
}
