package io.vfiodp.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileTest {

    @TempDir Path dir;

    private List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theFileAppearsWholeWithExactlyItsModeAndNothingElseStays() throws IOException {
        AtomicFile.write(dir.resolve("state.json"), "{}\n".getBytes(StandardCharsets.UTF_8), AtomicFile.OWNER_ONLY);
        AtomicFile.write(dir.resolve("spec.json"), "{}\n".getBytes(StandardCharsets.UTF_8), AtomicFile.WORLD_READABLE);

        assertThat(Files.readString(dir.resolve("state.json"))).isEqualTo("{}\n");
        assertThat(Files.getPosixFilePermissions(dir.resolve("state.json"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.getPosixFilePermissions(dir.resolve("spec.json"))).isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(names()).containsExactly("spec.json", "state.json");
    }

    @Test
    void anOldFileIsReplacedWhole() throws IOException {
        Files.writeString(dir.resolve("state.json"), "old content that is longer than the new");
        AtomicFile.write(dir.resolve("state.json"), "new".getBytes(StandardCharsets.UTF_8), AtomicFile.OWNER_ONLY);

        assertThat(Files.readString(dir.resolve("state.json"))).isEqualTo("new");
    }

    @Test
    void temporaryNamesAreRandomHiddenAndNotJson() {
        String a = AtomicFile.temporaryName("spec.json");
        String b = AtomicFile.temporaryName("spec.json");

        assertThat(a).isNotEqualTo(b).matches("\\.spec\\.json\\.[0-9a-f]{16}\\.tmp");
    }

    @Test
    void aLinkAtTheFinalNameIsReplacedNotFollowed() throws IOException {
        Path target = Files.writeString(dir.resolve("target"), "precious");
        Files.createSymbolicLink(dir.resolve("state.json"), target);

        AtomicFile.write(dir.resolve("state.json"), "new".getBytes(StandardCharsets.UTF_8), AtomicFile.OWNER_ONLY);

        assertThat(Files.readString(target)).isEqualTo("precious");
        assertThat(Files.isSymbolicLink(dir.resolve("state.json"))).isFalse();
        assertThat(Files.readString(dir.resolve("state.json"))).isEqualTo("new");
    }

    @Test
    void aDirectoryInTheFilesPlaceIsAnErrorNamingItAndNoTemporaryFileStays() throws IOException {
        Files.createDirectories(dir.resolve("state.json/inside"));

        assertThatThrownBy(() -> AtomicFile.write(dir.resolve("state.json"), new byte[0], AtomicFile.OWNER_ONLY))
                .hasMessage("cannot write " + dir.resolve("state.json") + ": a directory is in its place");
        assertThat(names()).containsExactly("state.json");
    }

    @Test
    void aMissingDirectoryIsAnErrorNamingTheFile() {
        assertThatThrownBy(() -> AtomicFile.write(dir.resolve("absent/state.json"), new byte[0], AtomicFile.OWNER_ONLY))
                .hasMessageStartingWith("cannot write " + dir.resolve("absent/state.json") + ": no such file or directory");
    }
}
