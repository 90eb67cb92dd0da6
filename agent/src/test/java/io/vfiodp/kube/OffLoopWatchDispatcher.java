package io.vfiodp.kube;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * fabric8 8.0's CRUD dispatcher, with the end of a watch handled off the mock server's event loop, and
 * what a real API server does besides ({@link ApiServerRules}: dry runs, device taints dropped on demand). Its watch
 * listener waits, in {@code onClosed}, for a task that itself needs that event loop, so every client that closes
 * a watch (an informer restarting, a test closing its client) stalled the whole mock server for Vert.x 5's
 * WebSocket closing timeout (10 s): requests timed out and the server could not shut down.
 * <p>
 * Its watch listener also stops its executor before it leaves the dispatcher's set of watches, and only after
 * waiting for that executor: a write in between sends the event to the stopped executor, the
 * {@code RejectedExecutionException} ends the write's handling and the client never gets an answer (a test's
 * own PATCH timed out). So an ending watch leaves the set first, here; the set is private to fabric8's CRUD
 * dispatcher, hence the reflection (test code only; a fabric8 release that renames the fields fails every test
 * that starts the mock server, at once and by name).
 */
public final class OffLoopWatchDispatcher extends KubernetesMixedDispatcher {

    private final ExecutorService closer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "mock-api-watch-closer");
        t.setDaemon(true);
        return t;
    });

    private final Set<?> watches;
    private final ApiServerRules rules = new ApiServerRules();

    public OffLoopWatchDispatcher(Map<ServerRequest, Queue<ServerResponse>> responses) {
        super(responses);
        watches = watchesOf(this);
    }

    private static Set<?> watchesOf(KubernetesMixedDispatcher mixed) {
        try {
            Field crudField = KubernetesMixedDispatcher.class.getDeclaredField("kubernetesCrudDispatcher");
            crudField.setAccessible(true);
            Field watchesField = KubernetesCrudDispatcher.class.getDeclaredField("watchEventListeners");
            watchesField.setAccessible(true);
            return (Set<?>) watchesField.get(crudField.get(mixed));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("fabric8's mock server changed: no set of watches to take an ending watch out of", e);
        }
    }

    /** What a real API server does that the CRUD mock does not: dry runs, and dropping device taints when told to. */
    ApiServerRules rules() {
        return rules;
    }

    @Override
    public MockResponse dispatch(RecordedRequest received) {
        RecordedRequest request = rules.admitted(received);
        Optional<MockResponse> dryRun = rules.dryRun(request);
        if (dryRun.isPresent()) return dryRun.get();
        MockResponse response = super.dispatch(request);
        WebSocketListener watch = response.getWebSocketListener();
        return watch == null ? response : response.withWebSocketUpgrade(new ClosedOffLoop(watch));
    }

    @Override
    public void shutdown() {
        super.shutdown();
        closer.shutdown();
        try {
            closer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class ClosedOffLoop extends WebSocketListener {
        private final WebSocketListener delegate;

        ClosedOffLoop(WebSocketListener delegate) {
            this.delegate = delegate;
        }

        @Override public void onBeforeAccept(WebSocket ws, Response r) { delegate.onBeforeAccept(ws, r); }
        @Override public void onOpen(WebSocket ws, Response r) { delegate.onOpen(ws, r); }
        @Override public void onMessage(WebSocket ws, String text) { delegate.onMessage(ws, text); }
        @Override public void onMessage(WebSocket ws, ByteString bytes) { delegate.onMessage(ws, bytes); }
        @Override public void onMessage(WebSocket ws, byte[] bytes) { delegate.onMessage(ws, bytes); }
        @Override public void onPing(WebSocket ws, byte[] bytes) { delegate.onPing(ws, bytes); }
        @Override public void onClosing(WebSocket ws, int code, String reason) { delegate.onClosing(ws, code, reason); }
        @Override public void onClosed(WebSocket ws, int code, String reason) {
            watches.remove(delegate);
            offLoop(() -> delegate.onClosed(ws, code, reason));
        }

        @Override public void onFailure(WebSocket ws, Throwable t, Response r) {
            watches.remove(delegate);
            offLoop(() -> delegate.onFailure(ws, t, r));
        }
    }

    private void offLoop(Runnable task) {
        try {
            closer.execute(task);
        } catch (RejectedExecutionException e) {
            // shutting down: still end the watch (it stops its own executor), but never on the event loop
            Thread.ofPlatform().daemon().name("mock-api-watch-closer-late").start(task);
        }
    }
}
