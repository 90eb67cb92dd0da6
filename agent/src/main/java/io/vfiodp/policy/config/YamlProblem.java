package io.vfiodp.policy.config;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.DeserializationProblemHandler;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.dataformat.yaml.YAMLParser;

/**
 * What went wrong in a YAML document, in words an operator can act on: the document, line, column
 * and field, and the problem without the YAML or JSON library's class names. Also the warning for
 * a field nobody reads (a typo such as {@code resourcename} would otherwise silently lose a setting).
 */
final class YamlProblem {

    /** A plain field path ({@code permittedHostDevices.pciHostDevices[0]}); a broken document can make a key of anything. */
    private static final Pattern PLAIN_PATH = Pattern.compile("[A-Za-z][A-Za-z0-9_]*(\\[\\d+]|\\.[A-Za-z][A-Za-z0-9_]*)*");
    /** How Jackson words a key that appears twice in one mapping. */
    private static final Pattern DUPLICATE = Pattern.compile("Duplicate Object property \"(.*)\"");
    /**
     * How Jackson words a number snakeyaml-engine's scanner failed to convert, with the exception's
     * class name: the hex digits of an escape in a double-quoted string cut short (a backslash-u escape with fewer than four).
     */
    private static final Pattern UNREADABLE_NUMBER =
            Pattern.compile("Malformed Number token: failed to tokenize due to \\([\\w.$]+\\): (.*)", Pattern.DOTALL);

    private YamlProblem() {}

    /** The message for {@code e}, read while {@code parser} still stands where it happened. */
    static String describe(String name, JacksonException e, JsonParser parser) {
        StringBuilder sb = new StringBuilder(name);
        TokenStreamLocation at = e.getLocation() != null ? e.getLocation() : parser.currentTokenLocation();
        if (at != null && at.getLineNr() > 0) {
            sb.append(" line ").append(at.getLineNr()).append(", column ").append(at.getColumnNr());
        }
        if (e instanceof DatabindException m) {
            // a value of the wrong kind with no field above it is the document itself
            sb.append(m.getPath().isEmpty() ? ", at the top level" : ", field " + path(m.getPath()));
        } else {
            // a broken document can make a key of anything ("permittedHostDevices:" with its colon): name only real fields
            String where = enclosing(parser.streamReadContext());
            if (!where.isEmpty() && PLAIN_PATH.matcher(where).matches()) sb.append(", field ").append(where);
        }
        return sb.append(": ").append(problem(e, parser)).toString();
    }

    private static String problem(JacksonException e, JsonParser parser) {
        if (parser instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
            // snakeyaml-engine hands an alias over as its anchor's name, which Jackson then reads as a plain string
            return "an alias (*" + parser.getString() + ") stands where a value belongs; aliases are not supported, write the value out";
        }
        if (e instanceof InvalidFormatException f) {
            return "'" + f.getValue() + "' is not " + expected(f.getTargetType());
        }
        if (e instanceof MismatchedInputException m && m.getTargetType() != null && parser.currentToken() != null) {
            return "expected " + expected(m.getTargetType()) + ", found " + found(parser.currentToken());
        }
        String message = e.getOriginalMessage() == null ? "not readable as YAML" : e.getOriginalMessage();
        Matcher duplicate = DUPLICATE.matcher(message);
        if (duplicate.matches()) return "Duplicate field '" + duplicate.group(1) + "'";
        Matcher number = UNREADABLE_NUMBER.matcher(message);
        if (number.matches()) {
            return "an escape the YAML scanner cannot read (in a double-quoted string \\x, \\u and \\U take 2, 4 and 8 hex digits): "
                    + number.group(1);
        }
        // snakeyaml-engine interleaves its own location and a source excerpt (indented lines) with
        // what went wrong (unindented lines); the location is already in front
        StringBuilder out = new StringBuilder();
        for (String line : message.split("\n")) {
            if (line.isBlank() || Character.isWhitespace(line.charAt(0))) continue;
            if (!out.isEmpty()) out.append(": ");
            out.append(line.strip());
        }
        return out.toString();
    }

    private static String expected(Class<?> type) {
        if (type == boolean.class || type == Boolean.class) return "true or false";
        if (type == String.class) return "a string";
        if (List.class.isAssignableFrom(type)) return "a list";
        return "a mapping (key: value)";
    }

    private static String found(JsonToken token) {
        return switch (token) {
            case START_ARRAY -> "a list";
            case START_OBJECT -> "a mapping";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "nothing";
            default -> token.toString();
        };
    }

    private static String path(List<JacksonException.Reference> references) {
        StringBuilder sb = new StringBuilder();
        for (JacksonException.Reference r : references) {
            if (r.getPropertyName() != null) {
                if (!sb.isEmpty()) sb.append('.');
                sb.append(r.getPropertyName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    private static String path(TokenStreamContext context, String field) {
        String around = enclosing(context);
        return around.isEmpty() ? field : around + "." + field;
    }

    /** The fields and list indexes that lead to {@code context}'s container, not the field being read in it. */
    private static String enclosing(TokenStreamContext context) {
        Deque<String> parts = new ArrayDeque<>();
        for (TokenStreamContext c = context.getParent(); c != null && !c.inRoot(); c = c.getParent()) {
            if (c.inArray()) {
                parts.push("[" + c.getCurrentIndex() + "]");
            } else if (c.currentName() != null) {
                parts.push(c.currentName());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String p : parts) {
            if (!sb.isEmpty() && !p.startsWith("[")) sb.append('.');
            sb.append(p);
        }
        return sb.toString();
    }

    static final class WarnOnUnknownField extends DeserializationProblemHandler {
        private final String name;
        private final List<String> warnings;

        WarnOnUnknownField(String name, List<String> warnings) {
            this.name = name;
            this.warnings = warnings;
        }

        @Override
        public boolean handleUnknownProperty(DeserializationContext ctxt, JsonParser p, ValueDeserializer<?> deserializer,
                Object beanOrClass, String propertyName) {
            TokenStreamLocation at = p.currentTokenLocation();
            TokenStreamContext context = p.streamReadContext();
            // on a structured value the parser has already entered it
            if (p.currentToken() == JsonToken.START_OBJECT || p.currentToken() == JsonToken.START_ARRAY) {
                context = context.getParent();
            }
            warnings.add(name + " line " + at.getLineNr() + ": unknown field " + path(context, propertyName)
                    + " ignored");
            p.skipChildren();
            return true;
        }
    }
}
