package io.vfiodp.plugin;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.kubelet.KubeletDialler;
import io.vfiodp.proto.deviceplugin.v1beta1.Empty;
import io.vfiodp.proto.deviceplugin.v1beta1.RegisterRequest;
import io.vfiodp.proto.deviceplugin.v1beta1.RegistrationGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Calls the kubelet's {@code Registration.Register}. Each attempt dials {@code kubelet.sock}
 * afresh: after a kubelet restart the old connection points at a deleted socket, and a channel's
 * own reconnect backoff would delay re-registration.
 *
 * <p>An attempt is meant for one kubelet, the one whose {@code kubelet.sock} the caller saw. When
 * the connection turns out to lead to a newer socket file, the request is not sent: the caller
 * would take the answer for a stale one and register again, and a kubelet that gets a second
 * Register for a resource drops the connection it opened for the first, failing Allocate calls
 * in flight on it.
 */
final class KubeletRegistrar implements AutoCloseable {

    static final String VERSION = "v1beta1";

    private final Path kubeletSocket;
    private final EventLoopGroup group;
    private final Duration timeout;
    private final Set<ManagedChannel> open = ConcurrentHashMap.newKeySet();
    // a connection dialled before anyone asked to register (dialAhead), for the first Register to take
    private final AtomicReference<Dialled> ahead = new AtomicReference<>();
    private final AtomicInteger dials = new AtomicInteger();

    /** A channel dialled ahead and the socket file it reached, known once it has connected. */
    private record Dialled(ManagedChannel channel, CompletableFuture<Optional<FileIdentity>> reached) {}

    KubeletRegistrar(Path kubeletSocket, EventLoopGroup group, Duration timeout) {
        this.kubeletSocket = kubeletSocket;
        this.group = group;
        this.timeout = timeout;
    }

    /**
     * Dials {@code kubelet.sock} now, when it exists, for the first {@link #register} to use: at start
     * the connection (the channel's set-up, the connect and HTTP/2's preface, interpreted code on the
     * event loop) is made while the first scan runs on another core instead of after it. The first
     * Register takes it only if it reached the kubelet that caller saw; a connection nobody takes
     * within the registration timeout is closed.
     *
     * @return the socket file the connection reached, once it has connected; empty when there was
     *         no {@code kubelet.sock} to dial or the connect failed
     */
    CompletableFuture<Optional<FileIdentity>> dialAhead() {
        if (!Files.exists(kubeletSocket)) return CompletableFuture.completedFuture(Optional.empty());
        Dialled dialled = new Dialled(dial(), new CompletableFuture<>());
        ManagedChannel channel = dialled.channel();
        if (!ahead.compareAndSet(null, dialled)) {
            release(channel);
            return CompletableFuture.completedFuture(Optional.empty());
        }
        whenConnected(channel, dialled.reached(), () -> dialled.reached().complete(
                channel.getState(false) == ConnectivityState.READY ? FileIdentity.of(kubeletSocket) : Optional.empty()));
        group.schedule(() -> {
            if (ahead.compareAndSet(dialled, null)) release(channel);
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        return dialled.reached();
    }

    /**
     * The channel dialled ahead, if it is still there and may lead to {@code kubelet}: still
     * connecting (the check at connect time below decides), or connected to that very socket file.
     */
    private Optional<ManagedChannel> takeAhead(Optional<FileIdentity> kubelet) {
        Dialled dialled = ahead.getAndSet(null);
        if (dialled == null) return Optional.empty();
        boolean usable = !dialled.reached().isDone() || dialled.reached().join().isPresent() && dialled.reached().join().equals(kubelet);
        if (!usable) release(dialled.channel());
        return usable ? Optional.of(dialled.channel()) : Optional.empty();
    }

    private ManagedChannel dial() {
        dials.incrementAndGet();
        ManagedChannel channel = KubeletDialler.dial(kubeletSocket, group);
        open.add(channel);
        return channel;
    }

    /** Registers with the kubelet listening on the socket file {@code kubelet}; fails if another one answers. */
    CompletableFuture<Void> register(RegisterRequest request, Optional<FileIdentity> kubelet) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        ManagedChannel channel = takeAhead(kubelet).orElseGet(this::dial);
        long deadline = System.nanoTime() + timeout.toNanos();
        var timer = group.schedule(() -> {
            if (done.completeExceptionally(Status.DEADLINE_EXCEEDED.withDescription("no connection to " + kubeletSocket + " within "
                    + timeout.toMillis() + " ms").asRuntimeException())) {
                release(channel);
            }
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        done.whenComplete((ok, error) -> timer.cancel(false));
        whenConnected(channel, done, () -> {
            if (done.isDone()) return;
            if (channel.getState(false) == ConnectivityState.READY && !FileIdentity.of(kubeletSocket).equals(kubelet)) {
                release(channel);
                done.completeExceptionally(new IllegalStateException(kubeletSocket + " was replaced while connecting (kubelet restart)"));
                return;
            }
            long left = Math.max(1, deadline - System.nanoTime());
            RegistrationGrpc.newStub(channel)
                    .withDeadlineAfter(left, TimeUnit.NANOSECONDS)
                    .register(request, new StreamObserver<>() {
                        @Override public void onNext(Empty value) {}

                        @Override public void onError(Throwable t) {
                            release(channel);
                            done.completeExceptionally(KubeletDialler.connectFailure(kubeletSocket, t)
                                    .<Throwable>map(why -> new IllegalStateException(why, t)).orElse(t));
                        }

                        @Override public void onCompleted() {
                            release(channel);
                            done.complete(null);
                        }
                    });
        });
        return done;
    }

    /**
     * Runs {@code then} once the channel has connected or failed to: a socket path is resolved
     * when connecting, so only a connected channel tells which file it reached. A failed connect
     * goes on to the call, which fails with the connect error as its reason.
     */
    private void whenConnected(ManagedChannel channel, CompletableFuture<?> done, Runnable then) {
        ConnectivityState state = channel.getState(true);
        if (state == ConnectivityState.READY || state == ConnectivityState.TRANSIENT_FAILURE || state == ConnectivityState.SHUTDOWN) {
            then.run();
        } else {
            channel.notifyWhenStateChanged(state, () -> {
                if (!done.isDone()) whenConnected(channel, done, then);
            });
        }
    }

    private void release(ManagedChannel channel) {
        open.remove(channel);
        channel.shutdownNow();
    }

    /** How many connections to {@code kubelet.sock} were dialled so far. */
    int dials() {
        return dials.get();
    }

    /** The channels dialled and not yet released: one per Register in flight, and one dialled ahead until it is taken or dropped. */
    int openChannels() {
        return open.size();
    }

    @Override
    public void close() {
        ahead.set(null);
        for (ManagedChannel c : open) c.shutdownNow();
        for (ManagedChannel c : open) {
            try {
                c.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        open.clear();
    }
}
