package io.vfiodp.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.policy.DraRouting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

/**
 * serve switching the t4-numa node between the device plugins and DRA under random histories,
 * against the kubelet simulators ({@link SwitchNode}): rollouts with another
 * {@code --dra-resources} and plain restarts, pods admitted through the device plugin, pods whose
 * claims the scheduler allocated on a device of the slice, pods ending, passes, PodResources going
 * away and coming back. Right after each event and while serve settles, no device is allocatable
 * through the device plugin while the slice offers it or a claim holds it, none is in the slice
 * while a device-plugin pod holds it, and none is held both ways; once the churn stops, every
 * device is offered where the routing says. Each history runs serve for real, so there are few.
 */
class HandoverOnNodeProperties {

    private static final Set<String> HEALTHY = Set.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0");

    enum Kind { TO_DRA, TO_PLUGINS, RESTART, ADMIT, RUN_WITH_CLAIM, POD_ENDS, PASS, PODS_DOWN, PODS_UP }

    record Step(Kind kind, int pick) {}

    @Provide
    Arbitrary<List<Step>> histories() {
        return Combinators.combine(Arbitraries.of(Kind.values()), Arbitraries.integers().between(0, 15)).as(Step::new)
                .list().ofMinSize(3).ofMaxSize(12);
    }

    @Property(tries = 6, shrinking = ShrinkingMode.OFF)
    void noDeviceIsEverAllocatableOrHeldBothWays(@ForAll("histories") List<Step> history) throws Exception {
        Path root = Files.createTempDirectory("switch-simulators");
        List<String> running = new ArrayList<>();
        int[] pods = {0};
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.NONE)) {
            for (Step s : history) {
                switch (s.kind()) {
                    case TO_DRA -> node.restart(DraRouting.ALL);
                    case TO_PLUGINS -> node.restart(DraRouting.NONE);
                    case RESTART -> node.restart(node.routing());
                    case ADMIT -> {
                        String pod = "vm" + pods[0]++;
                        if (node.admit(pod).isPresent()) running.add(pod);
                    }
                    case RUN_WITH_CLAIM -> {
                        List<String> offered = new ArrayList<>(node.sliceOffers());
                        offered.removeAll(node.claimHeld());
                        if (!offered.isEmpty()) {
                            String pod = "vm" + pods[0]++;
                            if (node.runWithClaim(pod, offered.get(s.pick() % offered.size()))) running.add(pod);
                        }
                    }
                    case POD_ENDS -> {
                        if (!running.isEmpty()) {
                            String pod = running.get(s.pick() % running.size());
                            if (node.end(pod).isEmpty()) running.remove(pod);
                        }
                    }
                    case PASS -> node.pass();
                    case PODS_DOWN -> node.podResources.unavailable(true);
                    case PODS_UP -> node.podResources.unavailable(false);
                }
                for (int look = 0; look < 4; look++) {
                    assertNothingBothWays(node, s);
                    Thread.sleep(25);
                }
            }
            for (String pod : List.copyOf(running)) {
                assertThat(node.end(pod)).as("unprepared at the end").isEmpty();
            }
            node.podResources.unavailable(false);
            node.pass();
            if (node.routing() == DraRouting.NONE) node.awaitAllocatable(HEALTHY);
            else node.awaitSliceOffers(HEALTHY);
            assertNothingBothWays(node, new Step(Kind.PASS, 0));
        } finally {
            delete(root);
        }
    }

    private static void assertNothingBothWays(SwitchNode node, Step after) {
        Set<String> allocatable = node.allocatable();
        Set<String> slice = node.sliceOffers();
        Set<String> pluginHeld = node.pods.pluginHeld();
        Set<String> claimHeld = node.claimHeld();
        assertThat(both(allocatable, slice)).as("allocatable through the device plugin and in the slice after %s", after).isEmpty();
        assertThat(both(allocatable, claimHeld)).as("allocatable through the device plugin while a claim holds it after %s", after).isEmpty();
        assertThat(both(slice, pluginHeld)).as("in the slice while a device-plugin pod holds it after %s", after).isEmpty();
        assertThat(both(pluginHeld, claimHeld)).as("held both ways after %s", after).isEmpty();
    }

    private static Set<String> both(Set<String> a, Set<String> b) {
        Set<String> out = new TreeSet<>(a);
        out.retainAll(new HashSet<>(b));
        return out;
    }

    private static void delete(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
