package io.vfiodp.demo.kubelet;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.ListAndWatchResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/** One ListAndWatch stream as the kubelet holds it: every update received, in order, until it ends. */
public final class Watch implements AutoCloseable {

    /** Told of every list and of the end, after the Watch has recorded them. */
    interface Listener {
        Listener NONE = new Listener() {
            @Override public void listed(Watch w, ListAndWatchResponse list) {}

            @Override public void ended(Watch w) {}
        };

        void listed(Watch w, ListAndWatchResponse list);

        void ended(Watch w);
    }

    private final String resource;
    private final Listener listener;
    private final List<ListAndWatchResponse> updates = new ArrayList<>();
    private ClientCallStreamObserver<Empty> call;
    private Status end;

    Watch(String resource, Listener listener) {
        this.resource = resource;
        this.listener = listener;
    }

    ClientResponseObserver<Empty, ListAndWatchResponse> observer() {
        return new ClientResponseObserver<>() {
            @Override public void beforeStart(ClientCallStreamObserver<Empty> requestStream) {
                synchronized (Watch.this) {
                    call = requestStream;
                }
            }

            @Override public void onNext(ListAndWatchResponse value) {
                // the kubelet's account first: whoever sees the update may look at the capacity
                listener.listed(Watch.this, value);
                synchronized (Watch.this) {
                    updates.add(value);
                    Watch.this.notifyAll();
                }
            }

            @Override public void onError(Throwable t) {
                finish(Status.fromThrowable(t));
            }

            @Override public void onCompleted() {
                finish(Status.OK);
            }
        };
    }

    private void finish(Status status) {
        listener.ended(this);
        synchronized (this) {
            end = status;
            notifyAll();
        }
    }

    public String resource() {
        return resource;
    }

    public synchronized List<ListAndWatchResponse> updates() {
        return List.copyOf(updates);
    }

    public synchronized Optional<ListAndWatchResponse> latest() {
        return updates.isEmpty() ? Optional.empty() : Optional.of(updates.getLast());
    }

    /** How the stream ended, when it has. */
    public synchronized Optional<Status> end() {
        return Optional.ofNullable(end);
    }

    /** Waits for the first update, counting from the start of the stream, that matches. */
    public synchronized ListAndWatchResponse awaitUpdate(Predicate<ListAndWatchResponse> match, Duration timeout)
            throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int seen = 0;
        while (true) {
            for (; seen < updates.size(); seen++) if (match.test(updates.get(seen))) return updates.get(seen);
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new TimeoutException(resource + ": no matching ListAndWatch update within " + timeout + "; got " + updates);
            wait(Math.max(1, left / 1_000_000));
        }
    }

    public synchronized void awaitUpdates(int count, Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (updates.size() < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new TimeoutException(resource + ": " + updates.size() + " of " + count + " ListAndWatch updates within " + timeout);
            wait(Math.max(1, left / 1_000_000));
        }
    }

    public synchronized Status awaitEnd(Duration timeout) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (end == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new TimeoutException(resource + ": ListAndWatch stream still open after " + timeout);
            wait(Math.max(1, left / 1_000_000));
        }
        return end;
    }

    /** Cancels the stream, as the kubelet does when it drops a plugin. */
    @Override
    public void close() {
        ClientCallStreamObserver<Empty> c;
        synchronized (this) {
            c = call;
        }
        if (c != null) c.cancel("kubelet closed the stream", null);
    }
}
