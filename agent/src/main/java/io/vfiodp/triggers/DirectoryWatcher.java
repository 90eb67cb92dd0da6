package io.vfiodp.triggers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Where a part's {@link DirectoryWatch}es come from: serve's one {@link DirectoryWatches} (one
 * thread for all), or {@link #ownThread} for a part started alone, as tests and tools do.
 */
@FunctionalInterface
public interface DirectoryWatcher {

    /**
     * Starts watching {@code dir}, or its parent until {@code dir} appears.
     *
     * @param what how logs name the directory ({@code device-plugin dir})
     * @throws IOException when neither {@code dir} nor its parent can be watched
     */
    DirectoryWatch watch(Path dir, String what, Consumer<DirectoryWatch.Change> onChange) throws IOException;

    /** Each watch on a WatchService and a thread of its own, named {@code threadName}, ended by the watch's close. */
    static DirectoryWatcher ownThread(String threadName) {
        return (dir, what, onChange) -> DirectoryWatch.start(dir, what, threadName, onChange);
    }
}
