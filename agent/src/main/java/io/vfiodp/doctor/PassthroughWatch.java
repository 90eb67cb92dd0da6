package io.vfiodp.doctor;

import io.vfiodp.host.Reading;
import io.vfiodp.host.vfio.VfioAvailability;
import io.vfiodp.node.ScanPolicySource;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * doctor inside serve. The first pass gets the whole examination, told in one summary line; after
 * that, a pass that leaves the node with no device to pass through is examined again, so that
 * {@code /readyz} and the metric say why with what holds now (an operator fixing the node
 * changes the answer), and a pass with devices costs a count.
 *
 * <p>{@link #passed} runs on the pass's thread, one pass after another, and alone changes the
 * standing; {@link #nothingToPassThrough} may be read from any thread. A first pass that has
 * devices to serve is examined later, by {@link #tellFirstPass}, which serve runs on the thread of
 * the passes after it once that pass's state is on its way to the kubelet: the examination then
 * costs the kubelet no wait, and no thread of its own.
 */
public final class PassthroughWatch {

    /** Takes each pass's standing: whether some device can be passed through, and else the failing checks. */
    @FunctionalInterface
    public interface Listener {
        void standing(boolean possible, List<String> failingChecks);
    }

    private static final Logger log = LoggerFactory.getLogger("io.vfiodp.doctor");
    private static final int SUMMARY_NAMES = 3;

    private final DoctorSettings settings;
    private final Reading<VfioAvailability> vfio;
    private final Listener listener;
    private volatile boolean examined;
    // the last pass's answer: empty when some device can be passed through, else why none can
    private volatile Optional<String> nothingToPassThrough = Optional.empty();
    // a first pass with devices, until tellFirstPass examines it
    private final AtomicReference<ScanPolicySource.Evaluation> firstPass = new AtomicReference<>();

    /**
     * @param settings the roots and directories serve was given ({@code --config} is read by serve's passes, not here)
     * @param vfio     what {@code /dev/vfio/vfio} answered at serve's start
     */
    public PassthroughWatch(DoctorSettings settings, VfioAvailability vfio, Listener listener) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.vfio = VfioProbe.answer(vfio, settings.devRoot());
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    public void passed(ScanPolicySource.Evaluation e) {
        boolean possible = PassthroughCheck.usable(e.result()) > 0;
        if (possible) {
            nothingToPassThrough = Optional.empty();
            listener.standing(true, List.of());
            if (!examined) {
                examined = true;
                firstPass.set(e);
            }
            return;
        }
        Report report = examine(e);
        if (!examined) {
            examined = true;
            tell(report);
        }
        List<Finding> failing = report.with(Severity.FAIL);
        nothingToPassThrough = Optional.of(failing.stream().map(Report::oneLine).collect(Collectors.joining("; ")));
        listener.standing(false, failing.stream().map(Finding::check).distinct().toList());
    }

    private Report examine(ScanPolicySource.Evaluation e) {
        return Doctor.examine(NodeReader.view(settings, e.snapshot(), vfio, config(e),
                new NodeReader.Decided(e.result(), e.permitted(), e.configOrigin(), new Reading.Found<>(e.pciIds().origin().describe())),
                Optional.empty()));
    }

    private static String tell(Report report) {
        String line = "doctor: " + report.summary(SUMMARY_NAMES) + (report.verdict() == Verdict.READY ? ""
                : "; `vfio-device-plugin doctor` prints every check with its fix");
        if (report.verdict() == Verdict.READY) log.info("{}", line);
        else log.warn("{}", line);
        return line;
    }

    /**
     * Examines the first pass and logs its summary line, when that pass had devices to serve and
     * so was not examined at once; the next calls do nothing. A failing examination is logged: it
     * must not stop a serve that works.
     *
     * @return the line logged, if this call logged one
     */
    public Optional<String> tellFirstPass() {
        ScanPolicySource.Evaluation e = firstPass.getAndSet(null);
        if (e == null) return Optional.empty();
        try {
            return Optional.of(tell(examine(e)));
        } catch (RuntimeException ex) {
            log.warn("doctor: the start-up examination failed: {}", ex.toString());
            return Optional.empty();
        }
    }

    /** Why no device can be passed through, as of the last pass; empty when some device can, or before the first pass. */
    public Optional<String> nothingToPassThrough() {
        return nothingToPassThrough;
    }

    private ConfigStatus config(ScanPolicySource.Evaluation e) {
        Optional<Path> file = settings.config();
        return file.<ConfigStatus>map(f -> new ConfigStatus.Loaded(f, e.configWarnings())).orElseGet(ConfigStatus.None::new);
    }
}
