package io.vfiodp.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

class StateEnvelopeTest {

    private static final String KIND = "vfio-device-plugin/test";

    @TempDir Path dir;

    private Path file() {
        return dir.resolve("state.json");
    }

    private static ObjectNode content() {
        ObjectNode c = StateEnvelope.json().createObjectNode();
        c.put("name", "a <b> & \u2028");
        c.putArray("ids").add("0000:3b:00.0").add(7);
        return c;
    }

    private String written() throws IOException {
        Files.write(file(), StateEnvelope.render(KIND, 2, content()));
        return Files.readString(file());
    }

    private StateReading read(String text) throws IOException {
        Files.writeString(file(), text);
        return StateEnvelope.read(file(), KIND, Set.of(2));
    }

    @Test
    void whatIsRenderedIsReadBack() throws IOException {
        assertThat(read(written())).isEqualTo(new StateReading.Found(2, content()));
        assertThat(Files.readString(file())).startsWith("{\n  \"kind\" : \"vfio-device-plugin/test\",\n  \"version\" : 2,\n  \"checksum\" : \"sha256:");
    }

    @Test
    void aChangeToTheContentFailsTheChecksum() throws IOException {
        String text = written();
        assertThat(read(text.replace("0000:3b:00.0", "0000:3c:00.0"))).isEqualTo(new StateReading.Lost(file()
                + " fails its checksum: it was changed or damaged after it was written"));
        assertThat(read(text.replace("7", "8"))).isInstanceOf(StateReading.Lost.class);
        // layout is free: only the content counts
        assertThat(read(text.replace("\n", "\n\n"))).isEqualTo(new StateReading.Found(2, content()));
    }

    @Test
    void anotherKindOrVersionIsLost() throws IOException {
        String text = written();
        assertThat(read(text.replace(KIND, "vfio-device-plugin/other"))).isEqualTo(new StateReading.Lost(file()
                + " holds vfio-device-plugin/other, not " + KIND));
        assertThat(read(text.replace("\"version\" : 2", "\"version\" : 3"))).isEqualTo(new StateReading.Lost(file()
                + " is of version 3; this agent reads version 2 (a newer agent wrote it?)"));
        assertThat(read(text.replace("\"version\" : 2", "\"version\" : 2.0"))).isEqualTo(new StateReading.Lost(file()
                + ": version: expected an integer"));
        assertThat(read(text.replace("\"version\" : 2", "\"version\" : \"2\""))).isInstanceOf(StateReading.Lost.class);
    }

    @Test
    void truncationDuplicateKeysTrailingDataAndUnknownFieldsAreLost() throws IOException {
        String text = written();
        for (int cut : new int[] {1, 10, text.length() / 2, text.length() - 3}) {
            assertThat(read(text.substring(0, cut))).as("cut at %d", cut).isInstanceOf(StateReading.Lost.class);
        }
        assertThat(read(text.replace("\"kind\" :", "\"kind\" : \"x\", \"kind\" :"))).isInstanceOf(StateReading.Lost.class);
        assertThat(read(text + "{}")).isInstanceOf(StateReading.Lost.class);
        assertThat(read(text.replace("\"kind\" :", "\"extra\" : 1, \"kind\" :"))).isEqualTo(new StateReading.Lost(file()
                + ": unknown field 'extra'"));
        assertThat(read(text.replace("\"content\" : {", "\"content\" : [ {").replace("}\n}", "} ]\n}"))).isInstanceOf(StateReading.Lost.class);
    }

    @Test
    void emptyNotAnObjectAndGarbageAreLost() throws IOException {
        assertThat(read("")).isEqualTo(new StateReading.Lost(file() + " is empty"));
        assertThat(read(" \n\t")).isEqualTo(new StateReading.Lost(file() + " is empty"));
        assertThat(read("null")).isEqualTo(new StateReading.Lost(file() + " is not a JSON object"));
        assertThat(read("[]")).isEqualTo(new StateReading.Lost(file() + " is not a JSON object"));
        assertThat(read("garbage")).isInstanceOf(StateReading.Lost.class);
        Files.write(file(), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1});
        assertThat(StateEnvelope.read(file(), KIND, Set.of(2))).isInstanceOf(StateReading.Lost.class);
    }

    @Test
    void anObjectWithoutAKindIsLegacyForTheCallerToJudge() throws IOException {
        assertThat(read("{\"version\": 1}")).isInstanceOf(StateReading.Legacy.class);
    }

    @Test
    void noFileIsMissingAndADirectoryALinkOrAFifoAreLost() throws IOException, InterruptedException {
        assertThat(StateEnvelope.read(file(), KIND, Set.of(2))).isEqualTo(new StateReading.Missing());
        Files.createDirectory(file());
        assertThat(StateEnvelope.read(file(), KIND, Set.of(2))).isEqualTo(new StateReading.Lost(file() + " is a directory, not a file"));
        Files.delete(file());
        Files.write(dir.resolve("real.json"), StateEnvelope.render(KIND, 2, content()));
        Files.createSymbolicLink(file(), dir.resolve("real.json"));
        assertThat(StateEnvelope.read(file(), KIND, Set.of(2))).isEqualTo(new StateReading.Lost(file()
                + " is a symbolic link, which the agent never writes"));
        Files.delete(file());
        Process mkfifo = new ProcessBuilder("mkfifo", file().toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        assertThat(StateEnvelope.read(file(), KIND, Set.of(2))).isEqualTo(new StateReading.Lost(file() + " is not a regular file"));
    }

    @Test
    void aFileLargerThanAnyTheAgentWritesIsLostWithoutReadingIt() throws IOException {
        try (var ch = java.nio.channels.FileChannel.open(file(), java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap("x".getBytes(StandardCharsets.UTF_8)), StateEnvelope.MAX_BYTES);
        }
        assertThat(StateEnvelope.read(file(), KIND, Set.of(2))).isEqualTo(new StateReading.Lost(file() + " holds "
                + (StateEnvelope.MAX_BYTES + 1) + " bytes, more than any the agent writes"));
    }
}
