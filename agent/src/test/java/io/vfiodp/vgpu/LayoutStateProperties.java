package io.vfiodp.vgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.state.Damage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The vGPU layout across restarts of the manager, its state file damaged at random in between
 * ({@link Damage}: bytes, truncation, garbage, wrong types, another version, removed, a
 * directory), on the t4-vgpu node whose five mdevs belong to someone else: whatever the file says,
 * no vGPU this plugin did not make is ever removed, and a manager started on a file it cannot
 * trust writes nothing to sysfs. (A running manager keeps what it read and wrote last.)
 */
class LayoutStateProperties {

    private static final Path FIXTURE = Path.of("src/test/resources/sysfs-fixtures/t4-vgpu");
    private static final String OURS = "00000000-0000-4000-8000-";
    private static final List<List<String>> LAYOUTS = List.of(List.of("GRID_T4-1Q"), List.of("GRID_T4-2Q"),
            List.of("GRID_T4-1Q", "GRID_T4-2Q"), List.of("GRID_T4-4Q"), List.of());

    enum Kind { RECONCILE, RESTART, DAMAGE }

    record Move(Kind kind, int pick) {}

    @Provide
    Arbitrary<List<Move>> histories() {
        return Combinators.combine(Arbitraries.of(Kind.values()), Arbitraries.integers().between(0, 4095)).as(Move::new).list()
                .ofMinSize(1).ofMaxSize(10);
    }

    @Property(tries = 15)
    void noVgpuOfAnotherOwnerIsEverRemoved(@ForAll("histories") List<Move> history) throws IOException {
        Path dir = Files.createTempDirectory("layout-state");
        try {
            Trees.copy(FIXTURE, dir.resolve("node"));
            SysfsScanner scanner = new SysfsScanner(dir.resolve("node/sys"), dir.resolve("node/dev"));
            Set<String> foreign = Set.copyOf(scanner.scan().mdevs().keySet());
            KernelFake kernel = new KernelFake(dir.resolve("node/sys"), dir.resolve("node/dev"));
            StateFile state = new StateFile(dir.resolve("state"));
            AtomicInteger uuid = new AtomicInteger();
            LayoutEvents quiet = new LayoutEvents() {
                @Override public void warn(String reason, String message) { }

                @Override public void state(LayoutState s, String message) { }
            };
            java.util.function.Supplier<LayoutManager> start = () -> new LayoutManager(scanner::scan, () -> new Allocated.Known(Set.of()),
                    new LayoutPlanner(() -> OURS + String.format("%012d", uuid.incrementAndGet())),
                    new LayoutExecutor(dir.resolve("node/sys"), kernel, state, quiet), state, quiet);
            LayoutManager manager = start.get();
            boolean fresh = true;
            for (Move m : history) {
                switch (m.kind()) {
                    case RECONCILE -> {
                        Set<String> before = new HashSet<>(scanner.scan().mdevs().keySet());
                        boolean trusted = !fresh || trusted(state);
                        fresh = false;
                        int writes = kernel.writes.size();
                        manager.reconcile(LAYOUTS.get(m.pick() % LAYOUTS.size()));
                        Set<String> removed = new HashSet<>(before);
                        removed.removeAll(scanner.scan().mdevs().keySet());
                        assertThat(removed).as("removed after %s", history).allMatch(u -> u.startsWith(OURS)).doesNotContainAnyElementsOf(foreign);
                        if (!trusted) assertThat(kernel.writes).as("sysfs writes on a state file that cannot be trusted").hasSize(writes);
                    }
                    case RESTART -> {
                        manager = start.get();
                        fresh = true;
                    }
                    case DAMAGE -> Damage.values()[m.pick() % Damage.values().length].to(state.file(), m.pick() * 7919);
                }
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** Whether a manager started now could read the file (or there is none). */
    private static boolean trusted(StateFile state) {
        try {
            state.read();
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
