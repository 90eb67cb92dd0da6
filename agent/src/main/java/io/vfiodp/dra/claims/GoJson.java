package io.vfiodp.dra.claims;

import java.util.List;
import java.util.Map;

/**
 * JSON exactly as Go's {@code json.MarshalIndent(v, "", "  ")} writes it, which is how Kubernetes'
 * kubeletplugin helper writes device metadata files and their CDI specs: two-space indent,
 * {@code "key": value}, empty arrays and objects as {@code []} and {@code {}}, and Go's string
 * escapes ({@code <}, {@code >}, {@code &}, U+2028 and U+2029 as {@code \}{@code u} escapes).
 * Objects keep the order of the map given: a struct's field order, or sorted keys for a Go map.
 * Values: {@link String}, {@link Long}/{@link Integer}, {@link Boolean}, {@link List}, {@link Map}.
 */
public final class GoJson {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private GoJson() {}

    public static String indented(Object value) {
        StringBuilder out = new StringBuilder();
        write(out, value, 0);
        return out.toString();
    }

    private static void write(StringBuilder out, Object value, int depth) {
        switch (value) {
            case String s -> string(out, s);
            case Long n -> out.append(n);
            case Integer n -> out.append(n);
            case Boolean b -> out.append(b);
            case Map<?, ?> m -> {
                if (m.isEmpty()) {
                    out.append("{}");
                    return;
                }
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) out.append(',');
                    first = false;
                    newline(out, depth + 1);
                    string(out, (String) e.getKey());
                    out.append(": ");
                    write(out, e.getValue(), depth + 1);
                }
                newline(out, depth);
                out.append('}');
            }
            case List<?> l -> {
                if (l.isEmpty()) {
                    out.append("[]");
                    return;
                }
                out.append('[');
                for (int i = 0; i < l.size(); i++) {
                    if (i > 0) out.append(',');
                    newline(out, depth + 1);
                    write(out, l.get(i), depth + 1);
                }
                newline(out, depth);
                out.append(']');
            }
            default -> throw new IllegalArgumentException("no JSON form for " + value.getClass().getName());
        }
    }

    private static void newline(StringBuilder out, int depth) {
        out.append('\n');
        for (int i = 0; i < depth; i++) out.append("  ");
    }

    static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '<', '>', '&', '\u2028', '\u2029' -> unicode(out, c);
                default -> {
                    if (c < 0x20) {
                        unicode(out, c);
                    } else if (Character.isSurrogate(c)) {
                        // Go replaces invalid UTF-8 with U+FFFD; a lone surrogate is Java's equivalent.
                        if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                            out.append(c).append(s.charAt(++i));
                        } else {
                            out.append("\\ufffd");
                        }
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static void unicode(StringBuilder out, char c) {
        out.append("\\u").append(HEX[c >> 12 & 0xf]).append(HEX[c >> 8 & 0xf]).append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
    }
}
