package io.vfiodp.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.vfiodp.host.DevNodes;
import io.vfiodp.policy.DesiredState;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The node loop with sides that only write down what they are handed, where and in which order: no sockets, no kubelet. */
class NodeLoopTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final List<String> handed = new CopyOnWriteArrayList<>();

    private NodeSide side(String name) {
        return new NodeSide() {
            @Override
            public CompletableFuture<Void> apply(TargetState state) {
                handed.add(name + " on " + Thread.currentThread().getName());
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public Set<String> offers(TargetState state) {
                return Set.of();
            }
        };
    }

    @Test
    void everyPassHandsItsStateToTheSidesInTheirOrderTheFirstOnTheCallersThread() throws IOException {
        try (NodeLoop loop = NodeLoop.start(() -> TargetState.EMPTY, () -> List.of(side("dra"), side("plugins")), Duration.ofHours(1))) {
            String caller = Thread.currentThread().getName();
            assertThat(handed).containsExactly("dra on " + caller, "plugins on " + caller);

            loop.rescanNow();

            await().atMost(WAIT).until(() -> handed.size() == 4);
            assertThat(handed.subList(2, 4)).containsExactly("dra on " + NodeLoop.PASS_THREAD, "plugins on " + NodeLoop.PASS_THREAD);
        }
    }

    @Test
    void aFirstReadThatFailsOpensNoSide() {
        AtomicInteger opened = new AtomicInteger();
        NodeStateSource broken = () -> {
            throw new IllegalStateException("config: bad selector");
        };

        assertThatThrownBy(() -> NodeLoop.start(broken, () -> {
            opened.incrementAndGet();
            return List.of(side("plugins"));
        }, Duration.ofHours(1))).hasMessage("config: bad selector");
        assertThat(opened).hasValue(0);
    }

    @Test
    void aLaterPassThatFailsKeepsTheLoopGoing() throws IOException {
        AtomicInteger reads = new AtomicInteger();
        NodeStateSource secondFails = () -> {
            if (reads.incrementAndGet() == 2) throw new IllegalStateException("sysfs unreadable");
            return new TargetState(DesiredState.EMPTY, DevNodes.NONE);
        };
        try (NodeLoop loop = NodeLoop.start(secondFails, () -> List.of(side("plugins")), Duration.ofHours(1))) {
            loop.rescanNow();
            await().atMost(WAIT).until(() -> reads.get() == 2);
            loop.rescanNow();

            await().atMost(WAIT).until(() -> handed.size() == 2);
            assertThat(reads).hasValue(3);
        }
    }
}
