package io.vfiodp.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.vfiodp.triggers.Backoff;
import io.vfiodp.triggers.ProblemLog;
import io.vfiodp.triggers.Worker;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;

/**
 * One fabric8 informer kept alive: when listing or watching fails (API server down, RBAC
 * forbidden, API not installed) it is replaced by a fresh one after a capped backoff. Each change
 * of state is logged once, not every retry. Until it has listed successfully its store counts as
 * unknown, so callers keep what they had.
 *
 * <p>All state lives on the given worker; {@code onChange} runs there too.
 */
public final class SupervisedInformer<T extends HasMetadata> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SupervisedInformer.class);

    private final String what;
    private final String rbacHint;
    private final String notFoundHint;
    private final Supplier<String> meanwhile;
    private final Supplier<SharedIndexInformer<T>> factory;
    private final Runnable onChange;
    private final Worker executor;
    private final ProblemLog problems = new ProblemLog(LOG);
    private final Backoff backoff;

    private SharedIndexInformer<T> current;
    private boolean synced;
    private boolean settled;
    private boolean absent;
    private boolean everRunning;
    private int attempt;
    private ScheduledFuture<?> retry;
    private boolean closed;

    /**
     * @param what         what is watched, for logs ({@code KubeVirt CRs})
     * @param rbacHint     the permission to grant when the API answers 403
     * @param notFoundHint what a 404 means for this resource
     * @param meanwhile    what the caller goes on with while it cannot watch, for the log line of
     *                     a failure ({@code serving the local policy meanwhile}); asked on the executor
     */
    public SupervisedInformer(String what, String rbacHint, String notFoundHint, Supplier<String> meanwhile,
            Supplier<SharedIndexInformer<T>> factory, Runnable onChange, Worker executor, Backoff backoff) {
        this.what = what;
        this.rbacHint = rbacHint;
        this.notFoundHint = notFoundHint;
        this.meanwhile = meanwhile;
        this.factory = factory;
        this.onChange = onChange;
        this.executor = executor;
        this.backoff = backoff;
    }

    public void start() {
        submit(this::launch);
    }

    /** True while the current informer has listed successfully: its store is the truth. */
    public boolean synced() {
        return synced;
    }

    /** True once the informer has either listed or failed at least once. */
    public boolean settled() {
        return settled;
    }

    /**
     * True while the last attempt ended in HTTP 404: the API does not serve this resource at all
     * (a CRD that is not installed), which means there is none of it, not that it is unknown.
     */
    public boolean absent() {
        return absent;
    }

    /** Why it cannot list or watch now, as the log said it; empty while it can. */
    public Optional<String> problem() {
        return Optional.ofNullable(problems.current());
    }

    /** The informer's store; empty while not {@link #synced()}. */
    public List<T> items() {
        return synced && current != null ? current.getStore().list() : List.of();
    }

    private void launch() {
        retry = null;
        if (closed) return;
        SharedIndexInformer<T> informer;
        try {
            informer = factory.get();
        } catch (RuntimeException e) {
            failed(null, e);
            return;
        }
        current = informer;
        // stop on any error and let this class restart a fresh informer: fabric8's own retry
        // would log every attempt and could not tell us when the API came back
        informer.exceptionHandler((started, t) -> false);
        informer.addEventHandler(new ResourceEventHandler<T>() {
            @Override public void onAdd(T obj) { changed(informer); }
            @Override public void onUpdate(T oldObj, T newObj) { changed(informer); }
            @Override public void onDelete(T obj, boolean deletedFinalStateUnknown) { changed(informer); }
        });
        informer.start().whenComplete((v, t) -> submit(() -> {
            if (t == null) started(informer); else failed(informer, t);
        }));
        informer.stopped().whenComplete((v, t) -> {
            if (t != null) submit(() -> failed(informer, t));
        });
    }

    private void changed(SharedIndexInformer<T> informer) {
        submit(() -> {
            if (informer == current && synced) onChange.run();
        });
    }

    private void started(SharedIndexInformer<T> informer) {
        if (closed || informer != current) return;
        synced = true;
        settled = true;
        absent = false;
        attempt = 0;
        if (!everRunning) {
            LOG.info("watching {}", what);
            problems.forget();
        } else {
            problems.resolved("watching " + what + " again (was: " + problems.current() + ")");
        }
        everRunning = true;
        onChange.run();
    }

    private void failed(SharedIndexInformer<T> informer, Throwable t) {
        if (closed || (informer != null && informer != current)) return;
        if (current != null) current.close();
        current = null;
        synced = false;
        settled = true;
        absent = httpCode(t) == 404;
        String problem = describe(t);
        // one line per distinct problem: a missing right (the GPU Operator's service account has none of ours) is said once,
        // not at every retry
        problems.problem(problem, "cannot watch " + what + ": " + problem + "; " + meanwhile.get() + "; retrying (backoff "
                + readable(backoff.initial()) + " to " + readable(backoff.max()) + ")");
        try {
            retry = executor.schedule(this::launch, backoff.delayAfter(++attempt));
        } catch (RejectedExecutionException e) {
            return;
        }
        onChange.run();
    }

    private static String readable(java.time.Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private static int httpCode(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof KubernetesClientException k && k.getCode() > 0) return k.getCode();
        }
        return 0;
    }

    private String describe(Throwable t) {
        return describe(t, rbacHint, notFoundHint);
    }

    /** Why a request failed, in words: the HTTP status with what it means here, or the transport failure. */
    public static String describe(Throwable t, String rbacHint, String notFoundHint) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof KubernetesClientException k && k.getCode() > 0) {
                return switch (k.getCode()) {
                    case 401 -> "unauthorized (HTTP 401): the service account token was rejected";
                    case 403 -> "forbidden (HTTP 403): grant " + rbacHint;
                    case 404 -> "not found (HTTP 404): " + notFoundHint;
                    default -> "HTTP " + k.getCode() + ": "
                            + printable(k.getStatus() != null && k.getStatus().getMessage() != null ? k.getStatus().getMessage() : k.getMessage());
                };
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.net.ConnectException || c instanceof java.nio.channels.ClosedChannelException
                    || c instanceof java.net.http.HttpTimeoutException || c instanceof java.net.SocketException) {
                return "API server unreachable (" + c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + printable(c.getMessage())) + ")";
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            // Jackson 3's parse errors are unchecked: they and I/O errors both mean that whatever answered was not an
            // API server's HTTP and JSON (a proxy's error page, a half-written response).
            if (c instanceof IOException || c instanceof JacksonException) {
                String message = c instanceof JacksonException j ? j.getOriginalMessage() : c.getMessage();
                return "unreadable answer from the API server (" + c.getClass().getSimpleName()
                        + (message == null ? "" : ": " + printable(message)) + ")";
            }
        }
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + printable(root.getMessage()));
    }

    private static final int MAX_QUOTED = 160;

    /** Quotes from a garbled answer stay one readable log line: control and non-ASCII bytes become '?', and it is cut. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_QUOTED + 1));
        for (int i = 0; i < s.length() && b.length() < MAX_QUOTED; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return s.length() > MAX_QUOTED ? b.append("...").toString() : b.toString();
    }

    private void submit(Runnable r) {
        // false once shutting down: nothing left to update
        executor.offer(r);
    }

    /** Stops the informer and any pending retry; call on the executor thread or after it stopped. */
    @Override
    public void close() {
        closed = true;
        if (retry != null) retry.cancel(false);
        if (current != null) current.close();
        current = null;
        synced = false;
    }
}
