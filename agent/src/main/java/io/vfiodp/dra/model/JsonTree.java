package io.vfiodp.dra.model;

import java.util.List;
import java.util.Map;

/**
 * Reading the parts of an API object held as a JSON tree (fabric8's generic resources: maps,
 * lists, strings, numbers and booleans as Jackson parsed them). The driver reads and writes its
 * few API objects so rather than through fabric8's typed model, whose classes and the serializers
 * Jackson would build for them are what DRA mode's memory went to (docs/benchmarks.md). A part
 * of another type than asked for reads as absent.
 */
public final class JsonTree {

    private JsonTree() {}

    /** The map at {@code path} below {@code tree}, or an empty one. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Object tree, String... path) {
        return at(tree, path) instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    /** The list at {@code path} below {@code tree}, or an empty one. */
    public static List<?> list(Object tree, String... path) {
        return at(tree, path) instanceof List<?> l ? l : List.of();
    }

    /** The string at {@code path} below {@code tree}, or null. */
    public static String text(Object tree, String... path) {
        return at(tree, path) instanceof String s ? s : null;
    }

    /** The value at {@code path} below {@code tree}, or null where a part is missing or not a map. */
    public static Object at(Object tree, String... path) {
        Object here = tree;
        for (String key : path) {
            if (!(here instanceof Map<?, ?> m)) return null;
            here = m.get(key);
        }
        return here;
    }
}
