package io.vfiodp.kernel.guest;

import java.time.Duration;
import java.util.Locale;

/**
 * How much slower than on a quiet machine the real-kernel tests' guest runs, measured by its boot,
 * so that their waits follow it. Under TCG every guest instruction is emulated on the host's CPUs:
 * on a busy machine (a load of 10 to 13 on two cores, where a wait of a fixed minute once ran out)
 * the guest's JVMs start and work that much slower, and its boot shows by how much.
 *
 * <p>A wait is its quiet bound times the pace, and never less than {@link #FLOOR} times that bound:
 * the load may rise after the boot was measured (other builds start), and a generous wait costs
 * only a failing run, which ends when the wait does. Waits are the conditions' ceilings, never
 * their expected durations: the tests go on as soon as the condition holds.
 *
 * <p>The host side measures it ({@link #ofBoot}) and hands it to the programs it starts in the
 * guest as {@code -D}{@value #PROPERTY}, whose waits then follow it too ({@link #fromProperty}).
 *
 * @param factor the boot's time over {@link #QUIET_BOOT}, at least 1
 */
public record Pace(double factor) {

    /** QEMU's start to the guest's command channel on a quiet two-core build machine (docs/benchmarks.md, RealKernelLatencyBench). */
    public static final Duration QUIET_BOOT = Duration.ofMillis(4500);
    /** What every wait is at least, in its quiet bounds: headroom for a load that rises after the boot. */
    public static final double FLOOR = 3;
    /** The longest any wait becomes, however slow the boot: a guest that slow fails in bounded time. */
    public static final Duration MOST = Duration.ofMinutes(10);
    public static final String PROPERTY = "vfiodp.pace";

    public Pace {
        if (!(factor >= 1)) throw new IllegalArgumentException("a pace is at least 1, not " + factor);
    }

    /** The pace of a guest that took {@code boot} from QEMU's start to its command channel. */
    public static Pace ofBoot(Duration boot) {
        return new Pace(Math.max(1, (double) boot.toNanos() / QUIET_BOOT.toNanos()));
    }

    /** In the guest: the pace the host measured, handed over as {@code -Dvfiodp.pace}; 1 where none was. */
    public static Pace fromProperty() {
        String given = System.getProperty(PROPERTY);
        return given == null ? new Pace(1) : new Pace(Double.parseDouble(given));
    }

    /** {@code quiet}, the bound on a quiet machine, at this pace: times the factor, at least {@link #FLOOR} times, at most {@link #MOST}. */
    public Duration scale(Duration quiet) {
        double times = Math.max(FLOOR, factor);
        long nanos = (long) Math.min(MOST.toNanos(), quiet.toNanos() * times);
        return Duration.ofNanos(nanos);
    }

    /** The JVM option that hands this pace to a program in the guest. */
    public String jvmOption() {
        return String.format(Locale.ROOT, "-D%s=%.2f", PROPERTY, factor);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%.1fx a quiet machine's", factor);
    }
}
