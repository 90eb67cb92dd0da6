package io.vfiodp.triggers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WorkerTest {

    @Test
    void closeReturnsOnceItsThreadHasEnded() throws Exception {
        Worker worker = Worker.start("worker-test");
        CompletableFuture<Thread> ran = new CompletableFuture<>();
        worker.execute(() -> ran.complete(Thread.currentThread()));
        Thread thread = ran.get(10, TimeUnit.SECONDS);

        worker.close();

        assertThat(thread.getName()).isEqualTo("worker-test");
        assertThat(thread.isAlive()).isFalse();
        assertThat(worker.offer(() -> { })).isFalse();
    }

    @Test
    void closeFromItsOwnThreadDoesNotWaitForItself() throws Exception {
        Worker worker = Worker.start("worker-test-self");
        CompletableFuture<Void> closed = new CompletableFuture<>();
        worker.execute(() -> {
            worker.close();
            closed.complete(null);
        });

        closed.get(10, TimeUnit.SECONDS);

        assertThat(worker.offer(() -> { })).isFalse();
    }
}
