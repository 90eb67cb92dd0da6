package io.vfiodp.serve;

import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.vfiodp.host.vfio.VfioApiProbe;
import io.vfiodp.policy.DefaultNames;
import io.vfiodp.policy.ResourceName;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;

/**
 * The part of every {@code serve} start that needs none of its options, begun on a second core
 * while picocli reads them. Each step only initializes what {@link ServeApp#start} would
 * initialize first anyway, so the work is the same, earlier: the logging backend (its properties
 * and date format), JNA with glibc bound (the VFIO check and the uevent socket), netty's epoll
 * transport with its native library (the gRPC servers and the kubelet client), and the run-time
 * linking of record methods (the first pass's policy).
 *
 * <p>serve must not log before the logging step is done ({@link #awaitLogging}): SLF4J answers a
 * logger asked for on another thread while it initializes with a substitute, whose events it
 * replays afterwards with three warning lines on stderr.
 *
 * <p>Nothing here can fail serve: a step that fails is left to fail again where serve needs it,
 * which reports it with the context it has.
 */
public final class ServePrestart {

    static final String THREAD = "vfio-dp-prestart";

    private final CountDownLatch logging = new CountDownLatch(1);
    private final Runnable loggingStep;
    private final Thread thread;

    private ServePrestart(Runnable loggingStep) {
        this.loggingStep = loggingStep;
        thread = Thread.ofPlatform().daemon().name(THREAD).unstarted(this::run);
    }

    /** Starts the steps on a daemon thread of their own, which ends when they are done. */
    public static ServePrestart begin() {
        return begin(LoggerFactory::getILoggerFactory);
    }

    /** As {@link #begin()}, with {@code loggingStep} as the step {@link #awaitLogging} waits for. */
    static ServePrestart begin(Runnable loggingStep) {
        ServePrestart prestart = new ServePrestart(loggingStep);
        prestart.thread.start();
        return prestart;
    }

    /** The thread the steps run on. */
    Thread thread() {
        return thread;
    }

    /** Returns once the logging step is done, or has failed. */
    public void awaitLogging() {
        try {
            logging.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        steps(() -> {
            try {
                loggingStep.run();
            } finally {
                logging.countDown();
            }
        }, VfioApiProbe::bindLibc, Epoll::isAvailable, ServePrestart::linkRecordMethods);
    }

    /**
     * Links {@code equals} and {@code hashCode} of {@link ResourceName}, the first pass's resource
     * keys. A record's {@code equals}, {@code hashCode} and {@code toString} are bootstrapped by
     * {@code java.lang.runtime.ObjectMethods} at their first call, which the AOT cache cannot do ahead
     * of time; the process's first such bootstrap also builds the method-handle forms every later one
     * reuses, interpreted, which the first pass would otherwise wait for (docs/benchmarks.md, "Choices in the code").
     */
    static void linkRecordMethods() {
        ResourceName name = ResourceName.of(DefaultNames.DOMAIN + "/PRESTART");
        name.equals(ResourceName.of(DefaultNames.DOMAIN + "/PRESTART_2"));
        name.hashCode();
    }

    /** Runs each step in turn; one that fails is passed over. */
    static void steps(Runnable... steps) {
        for (Runnable step : steps) {
            try {
                step.run();
            } catch (RuntimeException | LinkageError e) {
                // serve's own first use meets the same failure and reports it there
            }
        }
    }
}
