package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.host.uevent.UeventQueue;
import io.vfiodp.host.uevent.UeventSocket;
import io.vfiodp.node.HostScans;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** When serve listens to uevents, and the rescan period that follows. */
class UeventWiringTest {

    private static final Path FIXTURE = Path.of("src/test/resources/sysfs-fixtures/t4-numa");

    private final AtomicInteger opened = new AtomicInteger();
    private final UeventQueue kernel = new UeventQueue();

    private static ServeConfig config(Path sys, Optional<Duration> interval, UeventMode mode) {
        return new ServeConfig(sys, FIXTURE.resolve("dev"), Path.of("/proc"), Optional.empty(), Optional.empty(), Path.of("/nonexistent"), false,
                Optional.empty(), Optional.empty(), interval, mode, "", "", new ServeConfig.Vgpu(false, Path.of("/nonexistent"),
                Path.of("/nonexistent/pod-resources.sock")), ServeConfig.Dra.OFF, "test");
    }

    private UeventWiring.Opener opens() {
        return () -> {
            opened.incrementAndGet();
            return new UeventSocket.Opening.Opened(kernel);
        };
    }

    private UeventWiring.Opener unavailable() {
        return () -> {
            opened.incrementAndGet();
            return new UeventSocket.Opening.Unavailable("this process runs in a user namespace (uid_map '0 100000 65536')");
        };
    }

    private UeventWiring wire(ServeConfig config, UeventWiring.Opener opener, HostScans scans) {
        try (Closer closer = new Closer()) {
            return UeventWiring.open(config, scans, opener, closer);
        }
    }

    private HostScans scans() {
        return new HostScans(new SysfsScanner(FIXTURE.resolve("sys"), FIXTURE.resolve("dev")));
    }

    @Test
    void ueventsArrivingLengthenTheRescanPeriodToTheSafetyNets() {
        HostScans scans = scans();
        UeventWiring wiring = wire(config(FIXTURE.resolve("sys"), Optional.empty(), UeventMode.on), opens(), scans);

        assertThat(wiring.rescanPeriod()).isEqualTo(Duration.ofMinutes(5));
        assertThat(scans.tracking()).isTrue();
        assertThat(kernel.closed()).as("the closer of start-up closes what it opened").isTrue();
    }

    @Test
    void whereTheKernelSendsNoneTheRescanStaysAtThirtySeconds() {
        HostScans scans = scans();
        UeventWiring wiring = wire(config(FIXTURE.resolve("sys"), Optional.empty(), UeventMode.on), unavailable(), scans);

        assertThat(wiring.rescanPeriod()).isEqualTo(Duration.ofSeconds(30));
        assertThat(scans.tracking()).isFalse();
        assertThat(opened).hasValue(1);
    }

    @Test
    void anExplicitIntervalWinsEitherWay() {
        ServeConfig config = config(FIXTURE.resolve("sys"), Optional.of(Duration.ofSeconds(10)), UeventMode.on);

        assertThat(wire(config, opens(), scans()).rescanPeriod()).isEqualTo(Duration.ofSeconds(10));
        assertThat(wire(config, unavailable(), scans()).rescanPeriod()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void offNeverOpensTheSocket() {
        HostScans scans = scans();
        UeventWiring wiring = wire(config(Path.of("/sys"), Optional.empty(), UeventMode.off), opens(), scans);

        assertThat(opened).hasValue(0);
        assertThat(wiring.rescanPeriod()).isEqualTo(Duration.ofSeconds(30));
        assertThat(scans.tracking()).isFalse();
    }

    @Test
    void autoListensOnlyWhereTheSysfsRootIsTheKernelsSysfs() {
        wire(config(FIXTURE.resolve("sys"), Optional.empty(), UeventMode.auto), opens(), scans());
        assertThat(opened).as("a copy of a sysfs tree: the kernel's events describe another one").hasValue(0);

        wire(config(Path.of("/sys"), Optional.empty(), UeventMode.auto), unavailable(), scans());
        assertThat(opened).as("/sys").hasValue(1);
    }
}
