package io.vfiodp.serve;

import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.vfiodp.host.VfioApiCheck;
import io.vfiodp.policy.DefaultNames;
import io.vfiodp.policy.ResourceName;
import org.slf4j.LoggerFactory;

/**
 * The part of every {@code serve} start that needs none of its options, begun on a second core
 * while picocli reads them (picocli's model is built by reflection: the longest step before the
 * first log line). Each step only initializes what {@link ServeApp#start} would initialize first
 * anyway, so the work is the same, earlier: the logging backend (its properties and date format),
 * JNA with glibc bound (the VFIO check and the uevent socket), netty's epoll transport with
 * its native library (the gRPC servers and the kubelet client), and the run-time linking of
 * record methods (the first pass's policy).
 *
 * <p>Nothing here can fail serve: a step that fails is left to fail again where serve needs it,
 * which reports it with the context it has.
 */
public final class ServePrestart {

    static final String THREAD = "vfio-dp-prestart";

    private ServePrestart() {}

    /** Starts the steps on a daemon thread of their own, which ends when they are done. */
    public static Thread begin() {
        return Thread.ofPlatform().daemon().name(THREAD).start(ServePrestart::run);
    }

    static void run() {
        steps(LoggerFactory::getILoggerFactory, VfioApiCheck::bindLibc, Epoll::isAvailable, ServePrestart::linkRecordMethods);
    }

    /**
     * Links {@code equals} and {@code hashCode} of {@link ResourceName}, the first pass's resource
     * keys. A record's {@code equals}, {@code hashCode} and {@code toString} are bootstrapped by
     * {@code java.lang.runtime.ObjectMethods} at their first call, which the AOT cache cannot do ahead
     * of time; the process's first such bootstrap also builds the method-handle forms every later one
     * reuses: 6-8 ms, interpreted, of the first pass otherwise, and 1 ms for each further record.
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
