package io.vfiodp.plugin;

import io.vfiodp.kubelet.FileIdentity;
import io.vfiodp.node.TargetState;
import io.vfiodp.plugin.ReconcileAction.Log;
import io.vfiodp.plugin.ReconcileAction.NotifyHealthChanged;
import io.vfiodp.plugin.ReconcileAction.NotifyRegistered;
import io.vfiodp.plugin.ReconcileAction.Publish;
import io.vfiodp.plugin.ReconcileAction.Register;
import io.vfiodp.plugin.ReconcileAction.StartServer;
import io.vfiodp.plugin.ReconcileAction.StopServer;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.triggers.Backoff;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Drives {@link ReconcileStep} by hand: events at given milliseconds, actions rendered as short
 * lines that tables can spell out. Time starts 250 ms before {@code long} wraps, so that every
 * due-time comparison is also a test of wrap-safe arithmetic.
 */
final class StepScript {

    static final Path DIR = Path.of("/plugins");
    static final Backoff BACKOFF = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(1));
    static final FileIdentity K1 = new FileIdentity("0:11", FileTime.fromMillis(1));
    static final FileIdentity K2 = new FileIdentity("0:12", FileTime.fromMillis(2));
    private static final long ORIGIN = Long.MAX_VALUE - Duration.ofMillis(250).toNanos();

    /** Events that happen together {@code ms} after the start. */
    record At(long ms, List<ReconcileEvent> events) {
        @Override
        public String toString() {
            return ms + " ms " + events;
        }
    }

    private final ReconcileStep step = new ReconcileStep(DIR, BACKOFF);
    private ReconcileState state = ReconcileState.INITIAL;

    /** Feeds {@code at} and returns its actions, rendered. */
    List<String> feed(At at) {
        var r = step.next(state, at.events(), ORIGIN + Duration.ofMillis(at.ms()).toNanos());
        state = r.state();
        // the wake-up, rendered as the last action, as the step asks for it after all the others
        return Stream.concat(r.actions().stream().map(StepScript::render),
                r.wakeAt().stream().map(wake -> "wake at " + Duration.ofNanos(wake - ORIGIN).toMillis() + " ms")).toList();
    }

    List<String> feedAll(List<At> events) {
        List<String> out = new ArrayList<>();
        for (At at : events) out.addAll(feed(at));
        return out;
    }

    ReconcileState state() {
        return state;
    }

    static At at(long ms, ReconcileEvent... together) {
        return new At(ms, List.of(together));
    }

    static ReconcileEvent target(TargetState target) {
        return new ReconcileEvent.TargetChanged(target);
    }

    /** A sweep that finds no {@code kubelet.sock}. */
    static ReconcileEvent sweep() {
        return new ReconcileEvent.Swept(Optional.empty(), Set.of());
    }

    /** A sweep that finds {@code kubelet} and every socket of ours but those of {@code gone}. */
    static ReconcileEvent sweep(FileIdentity kubelet, String... gone) {
        return new ReconcileEvent.Swept(Optional.of(kubelet), Arrays.stream(gone).map(ResourceName::of).collect(Collectors.toSet()));
    }

    static ReconcileEvent created() {
        return new ReconcileEvent.KubeletSocketCreated();
    }

    static ReconcileEvent started(String resource, long generation) {
        return new ReconcileEvent.ServerStarted(ResourceName.of(resource), generation);
    }

    static ReconcileEvent failed(String resource, long generation, String problem) {
        return new ReconcileEvent.ServerFailed(ResourceName.of(resource), generation, problem);
    }

    static ReconcileEvent accepted(String resource, long epoch, long generation) {
        return new ReconcileEvent.RegistrationAccepted(ResourceName.of(resource), epoch, generation);
    }

    static ReconcileEvent refused(String resource, long epoch, long generation, String error) {
        return new ReconcileEvent.RegistrationFailed(ResourceName.of(resource), epoch, generation, error);
    }

    static ReconcileEvent close() {
        return new ReconcileEvent.Close();
    }

    static String render(ReconcileAction action) {
        return switch (action) {
            case StartServer s -> "start " + s.name().name() + " gen " + s.generation() + " on " + s.socket() + " " + devices(s.view());
            case StopServer s -> "stop " + s.name().name() + " gen " + s.generation() + (s.finalEmpty() ? " with a final empty list" : "");
            case Publish p -> "publish " + p.name().name() + " gen " + p.generation() + " " + devices(p.view());
            case Register r -> "register " + r.name().name() + " epoch " + r.epoch() + " gen " + r.generation() + " with "
                    + (r.kubelet().equals(K1) ? "K1" : r.kubelet().equals(K2) ? "K2" : r.kubelet()) + " as " + r.endpoint();
            case NotifyRegistered n -> "tell registered " + n.name().name() + (n.again() ? " again" : " first");
            case NotifyHealthChanged h -> "tell health " + h.name().name() + " " + h.deviceId() + " " + h.from().wireValue() + " -> "
                    + h.to().wireValue();
            case Log l -> l.level() + " " + l.message();
        };
    }

    private static String devices(ResourceView view) {
        return view.devices().values().stream().map(d -> d.id() + " " + d.health().wireValue()).toList().toString();
    }
}
