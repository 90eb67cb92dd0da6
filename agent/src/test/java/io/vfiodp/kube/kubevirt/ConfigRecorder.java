package io.vfiodp.kube.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Collects what a {@link KubeVirtConfigWatcher} emits, in order. */
final class ConfigRecorder implements Consumer<KubeVirtConfig> {

    /** How long {@link #next} waits: generous for a loaded machine, as a passing test waits only as long as it takes. */
    static final Duration WAIT = Duration.ofSeconds(30);

    private final BlockingQueue<KubeVirtConfig> seen = new LinkedBlockingQueue<>();

    @Override
    public void accept(KubeVirtConfig config) {
        seen.add(config);
    }

    /** The next emitted configuration; fails after {@link #WAIT}. */
    KubeVirtConfig next() throws InterruptedException {
        KubeVirtConfig c = seen.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(c).as("a configuration emitted within " + WAIT).isNotNull();
        return c;
    }

    KubeVirtConfig.FromCr nextFromCr() throws InterruptedException {
        KubeVirtConfig c = next();
        assertThat(c).isInstanceOf(KubeVirtConfig.FromCr.class);
        return (KubeVirtConfig.FromCr) c;
    }

    /** The next emission within {@code wait}, or null. */
    KubeVirtConfig poll(Duration wait) throws InterruptedException {
        return seen.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
    }
}
