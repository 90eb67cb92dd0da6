package io.vfiodp.state;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;

/**
 * Strict reading of a state file's JSON: each value of the type expected, every required field
 * there, no field the agent does not write. A failure throws an {@link IOException} naming where
 * ({@code claims[2].devices[0].deviceId: expected a string}), so that a file of the wrong shape
 * is refused with a reason, never read as less than it says.
 */
public final class JsonShape {

    private JsonShape() {}

    /**
     * {@code node}, checked to be an object with every field of {@code required} and none outside
     * {@code required} and {@code optional}.
     *
     * @param at where the object is, for messages ({@code ""} for the top)
     */
    public static JsonNode object(JsonNode node, String at, Set<String> required, Set<String> optional) throws IOException {
        if (node == null || !node.isObject()) throw new IOException(where(at) + "expected an object");
        for (String f : new TreeSet<>(required)) {
            if (!node.has(f)) throw new IOException(where(at) + "field '" + f + "' is missing");
        }
        for (String f : node.propertyNames()) {
            if (!required.contains(f) && !optional.contains(f)) throw new IOException(where(at) + "unknown field '" + f + "'");
        }
        return node;
    }

    /** The string field {@code field} of the object at {@code at}. */
    public static String text(JsonNode object, String field, String at) throws IOException {
        JsonNode v = object.get(field);
        if (v == null || !v.isString()) throw new IOException(where(at, field) + "expected a string");
        return v.asString();
    }

    public static Optional<String> optionalText(JsonNode object, String field, String at) throws IOException {
        return object.has(field) ? Optional.of(text(object, field, at)) : Optional.empty();
    }

    /** The integer field {@code field} (no fraction, no string). */
    public static long integer(JsonNode object, String field, String at) throws IOException {
        JsonNode v = object.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) throw new IOException(where(at, field) + "expected an integer");
        return v.asLong();
    }

    /** The elements of the array field {@code field}. */
    public static List<JsonNode> array(JsonNode object, String field, String at) throws IOException {
        JsonNode v = object.get(field);
        if (v == null || !v.isArray()) throw new IOException(where(at, field) + "expected an array");
        List<JsonNode> out = new ArrayList<>();
        v.forEach(out::add);
        return out;
    }

    /** The array of strings {@code field}. */
    public static List<String> texts(JsonNode object, String field, String at) throws IOException {
        List<String> out = new ArrayList<>();
        List<JsonNode> items = array(object, field, at);
        for (int i = 0; i < items.size(); i++) {
            if (!items.get(i).isString()) throw new IOException(where(at, field + "[" + i + "]") + "expected a string");
            out.add(items.get(i).asString());
        }
        return out;
    }

    /** {@code at.field}, as messages name a place. */
    public static String path(String at, String field) {
        return at.isEmpty() ? field : at + "." + field;
    }

    private static String where(String at) {
        return at.isEmpty() ? "" : at + ": ";
    }

    private static String where(String at, String field) {
        return path(at, field) + ": ";
    }
}
