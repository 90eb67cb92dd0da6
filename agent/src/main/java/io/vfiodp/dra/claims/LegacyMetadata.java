package io.vfiodp.dra.claims;

import io.vfiodp.state.StateEnvelope;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.json.JsonMapper;

/**
 * Device metadata as releases before UID-keyed paths left it, under {@code <ns>_<claim>}: one
 * directory for every claim of that name. It is removed with a claim only when all it holds is
 * that claim's, so that unpreparing an old claim never takes a newer one's file.
 */
final class LegacyMetadata {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private LegacyMetadata() {}

    /** Whether {@code dir} holds metadata files and each names claim {@code uid} (the first object of its stream). */
    static boolean namesOnly(Path dir, String uid) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return false;
        boolean any = false;
        try (DirectoryStream<Path> requests = Files.newDirectoryStream(dir)) {
            for (Path request : requests) {
                if (!uid.equals(uidIn(request.resolve("metadata.json")))) return false;
                any = true;
            }
        } catch (IOException | JacksonException e) {
            return false;
        }
        return any;
    }

    private static String uidIn(Path file) throws IOException {
        byte[] bytes = StateEnvelope.readRegular(file);
        try (MappingIterator<JsonNode> objects = JSON.readerFor(JsonNode.class).readValues(bytes)) {
            if (!objects.hasNext()) return null;
            JsonNode uid = objects.next().path("metadata").path("uid");
            return uid.isString() ? uid.asString() : null;
        }
    }
}
