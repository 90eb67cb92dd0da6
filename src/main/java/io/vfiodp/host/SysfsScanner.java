package io.vfiodp.host;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Reads a directory that plays {@code /sys} and one that plays {@code /dev} into a
 * {@link HostSnapshot}. Never throws for a bad entry: the entry is left out and explained in
 * {@link HostSnapshot#problems()}. Never reads outside the two roots, whatever the links say.
 *
 * <p>Each call to {@link #scan()} is independent (fresh caches, its own short-lived reader
 * threads, shut down before it returns), so one scanner may be used from any thread.
 */
public final class SysfsScanner {

    /** Below this many functions, starting threads costs more than it saves. */
    private static final int PARALLEL_THRESHOLD = 64;

    private final Path sysRoot;
    private final Path devRoot;
    private final int readThreads;

    public SysfsScanner(Path sysRoot, Path devRoot) {
        this(sysRoot, devRoot, Math.min(4, Runtime.getRuntime().availableProcessors()));
    }

    /** @param readThreads how many threads read functions in parallel on large hosts (1 = none) */
    public SysfsScanner(Path sysRoot, Path devRoot, int readThreads) {
        this.sysRoot = Objects.requireNonNull(sysRoot, "sysRoot");
        this.devRoot = Objects.requireNonNull(devRoot, "devRoot");
        if (readThreads < 1) throw new IllegalArgumentException("readThreads must be >= 1, was " + readThreads);
        this.readThreads = readThreads;
    }

    public HostSnapshot scan() {
        List<ScanProblem> problems = new ArrayList<>();
        DevNodes devNodes = scanDev(problems);
        ConfinedTree sys;
        try {
            sys = ConfinedTree.open(sysRoot);
        } catch (IOException e) {
            problems.add(new ScanProblem(".", "sysfs root " + whyUnusable(sysRoot, e)));
            return new HostSnapshot(new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeMap<>(), new TreeMap<>(),
                    devNodes, problems);
        }

        List<ScannedFunction.Found> found = scanFunctions(sys, problems);
        TreeMap<PciAddress, PciFunction> functions = new TreeMap<>();
        Map<Integer, String> groupDirs = new TreeMap<>();
        for (ScannedFunction.Found f : found) {
            functions.put(f.function().address(), f.function());
            problems.addAll(f.warnings());
            if (f.groupDir().isPresent()) groupDirs.putIfAbsent(f.function().iommuGroup().getAsInt(), f.groupDir().get());
        }

        MdevReader mdevReader = new MdevReader(sys);
        TreeMap<PciAddress, MdevParent> mdevParents = new TreeMap<>();
        for (ScannedFunction.Found f : found) {
            if (f.hasMdevTypes()) mdevReader.readParent(f, problems).ifPresent(p -> mdevParents.put(p.address(), p));
        }
        TreeMap<String, MdevInstance> mdevs = new TreeMap<>();
        for (MdevInstance m : mdevReader.readInstances(problems, groupDirs)) mdevs.put(m.uuid(), m);

        TreeMap<PciAddress, VgpuVf> vgpuVfs = new TreeMap<>();
        for (VgpuVf vf : new VgpuVfReader(sys).read(found, problems)) vgpuVfs.put(vf.address(), vf);

        TreeMap<Integer, IommuGroup> groups = readGroups(sys, groupDirs, functions, problems);

        problems.sort(Comparator.comparing(ScanProblem::path).thenComparing(ScanProblem::reason));
        return new HostSnapshot(functions, groups, mdevParents, mdevs, vgpuVfs, devNodes, problems);
    }

    private TreeMap<Integer, IommuGroup> readGroups(ConfinedTree sys, Map<Integer, String> groupDirs,
                                                    Map<PciAddress, PciFunction> functions, List<ScanProblem> problems) {
        TreeMap<Integer, IommuGroup> groups = new TreeMap<>();
        List<Map.Entry<Integer, String>> groupList = new ArrayList<>(groupDirs.entrySet());
        for (GroupRead g : map(groupList, e -> readGroup(sys, e.getKey(), e.getValue()))) {
            problems.addAll(g.problems());
            List<PciAddress> members = g.members().orElseGet(() -> functions.values().stream()
                    .filter(fn -> fn.iommuGroup().isPresent() && fn.iommuGroup().getAsInt() == g.number())
                    .map(PciFunction::address).toList());
            groups.put(g.number(), new IommuGroup(g.number(), members));
        }
        return groups;
    }

    private static String whyUnusable(Path root, IOException e) {
        if (e instanceof NoSuchFileException) return root + " does not exist";
        if (e instanceof NotDirectoryException) return root + " is not a directory";
        return root + " cannot be read: " + e.getMessage();
    }

    private DevNodes scanDev(List<ScanProblem> problems) {
        try {
            return new DevNodesReader(ConfinedTree.open(devRoot)).read(problems);
        } catch (IOException e) {
            problems.add(new ScanProblem("dev:.", "dev root " + whyUnusable(devRoot, e)));
            return DevNodes.NONE;
        }
    }

    private List<ScannedFunction.Found> scanFunctions(ConfinedTree sys, List<ScanProblem> problems) {
        String devicesDir;
        String[] names;
        try {
            devicesDir = sys.walk("bus/pci/devices");
            names = sys.list(devicesDir);
        } catch (EntryUnreadable e) {
            problems.add(e.toProblem());
            return List.of();
        }
        List<PciAddress> addresses = new ArrayList<>(names.length);
        for (String name : names) {
            Optional<PciAddress> address = PciAddress.tryParse(name);
            if (address.isPresent()) addresses.add(address.get());
            else problems.add(new ScanProblem("bus/pci/devices/" + name, "not a PCI address (expected DDDD:BB:SS.F)"));
        }
        addresses.sort(Comparator.naturalOrder());
        PciFunctionReader reader = new PciFunctionReader(sys, devicesDir);
        List<ScannedFunction.Found> found = new ArrayList<>(addresses.size());
        for (ScannedFunction result : map(addresses, reader::read)) {
            switch (result) {
                case ScannedFunction.Found f -> found.add(f);
                case ScannedFunction.Skipped s -> problems.add(s.problem());
            }
        }
        return found;
    }

    private record GroupRead(int number, Optional<List<PciAddress>> members, List<ScanProblem> problems) {}

    private static GroupRead readGroup(ConfinedTree sys, int number, String groupDir) {
        String shown = "kernel/iommu_groups/" + number + "/devices";
        List<ScanProblem> problems = new ArrayList<>();
        try {
            List<PciAddress> members = new ArrayList<>();
            for (String name : sys.list(sys.directory(groupDir, "devices", shown))) {
                Optional<PciAddress> address = PciAddress.tryParse(name);
                if (address.isPresent()) members.add(address.get());
                else if (!MdevReader.isUuid(name)) {
                    problems.add(new ScanProblem(shown + "/" + name, "neither a PCI address nor an mdev UUID; not counted as a member"));
                }
            }
            return new GroupRead(number, Optional.of(members), problems);
        } catch (EntryUnreadable e) {
            // Members then come from the functions that name this group: what matters later is
            // which devices must travel together, and those are the ones we know of.
            problems.add(new ScanProblem(e.path(), e.reason() + "; members taken from the functions linking to the group"));
            return new GroupRead(number, Optional.empty(), problems);
        }
    }

    /**
     * Applies {@code read} to every item, in order, on a bounded pool when there are enough
     * items. {@code read} must not throw checked exceptions; an unexpected runtime exception is
     * a bug in this package and propagates.
     */
    private <T, R> List<R> map(List<T> items, Function<T, R> read) {
        if (items.size() < PARALLEL_THRESHOLD || readThreads == 1) return items.stream().map(read).toList();
        int chunks = readThreads * 4;
        int chunkSize = (items.size() + chunks - 1) / chunks;
        List<R> results = new ArrayList<>(items.size());
        ReaderThreads threads = new ReaderThreads();
        try (ExecutorService pool = Executors.newFixedThreadPool(readThreads, threads)) {
            List<Future<List<R>>> parts = new ArrayList<>();
            for (int from = 0; from < items.size(); from += chunkSize) {
                List<T> slice = items.subList(from, Math.min(items.size(), from + chunkSize));
                parts.add(pool.submit(() -> slice.stream().map(read).toList()));
            }
            for (Future<List<R>> part : parts) results.addAll(part.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("scan interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new IllegalStateException(e.getCause());
        } finally {
            threads.joinAll();
        }
        return results;
    }

    /**
     * Names the reader threads and remembers them: a terminated pool's workers may still be
     * unwinding, and a scan must not return while any of them is alive (no thread outlives it).
     */
    private static final class ReaderThreads implements ThreadFactory {
        private final AtomicInteger count = new AtomicInteger();
        private final List<Thread> created = new CopyOnWriteArrayList<>();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "sysfs-scan-" + count.incrementAndGet());
            t.setDaemon(true);
            created.add(t);
            return t;
        }

        void joinAll() {
            boolean interrupted = false;
            for (Thread t : created) {
                while (t.isAlive()) {
                    try {
                        t.join();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
