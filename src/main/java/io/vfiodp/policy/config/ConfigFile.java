package io.vfiodp.policy.config;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.DeserializationProblemHandler;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.dataformat.yaml.YAMLMapper;
import tools.jackson.dataformat.yaml.YAMLParser;

/**
 * Reads the {@code --config} file: YAML with a top-level {@code permittedHostDevices:} block in
 * the KubeVirt CR's schema. The document as a whole either parses or is one error naming the
 * file, line and field; fields we do not know are skipped with a warning (a typo such as
 * {@code resourcename} would otherwise silently lose a setting).
 */
public final class ConfigFile {

    /** A parsed file and the warnings about fields it ignored. */
    public record Loaded(PermittedHostDevices permittedHostDevices, List<String> warnings) {
        public Loaded {
            warnings = List.copyOf(warnings);
        }
    }

    // Plain field classes, not the records: Jackson buffers unknown properties of a record
    // (creator-based) and replays them without their location, and the warnings need the line.
    @SuppressWarnings("unused")
    @JsonIgnoreProperties({"mediatedDevicesConfiguration"}) // read by io.vfiodp.vgpu.LayoutConfigFile
    static final class Document {
        public Lists permittedHostDevices;
    }

    @SuppressWarnings("unused")
    @JsonIgnoreProperties({"usb"})
    static final class Lists {
        public List<PciEntry> pciHostDevices;
        public List<MdevEntry> mediatedDevices;

        PermittedHostDevices toRecord() {
            return new PermittedHostDevices(
                    pciHostDevices == null ? null : pciHostDevices.stream().map(e -> e == null ? null : e.toRecord()).toList(),
                    mediatedDevices == null ? null : mediatedDevices.stream().map(e -> e == null ? null : e.toRecord()).toList());
        }
    }

    @SuppressWarnings("unused")
    static final class PciEntry {
        public String pciVendorSelector;
        public String resourceName;
        public boolean externalResourceProvider;

        PciHostDevice toRecord() {
            return new PciHostDevice(pciVendorSelector, resourceName, externalResourceProvider);
        }
    }

    @SuppressWarnings("unused")
    static final class MdevEntry {
        public String mdevNameSelector;
        public String resourceName;
        public boolean externalResourceProvider;

        MediatedHostDevice toRecord() {
            return new MediatedHostDevice(mdevNameSelector, resourceName, externalResourceProvider);
        }
    }

    /** How Jackson words a key that appears twice in one mapping. */
    private static final Pattern PLAIN_PATH = Pattern.compile("[A-Za-z][A-Za-z0-9_]*(\\[\\d+]|\\.[A-Za-z][A-Za-z0-9_]*)*");
    private static final Pattern DUPLICATE = Pattern.compile("Duplicate Object property \"(.*)\"");

    private ConfigFile() {}

    public static Loaded read(Path file) throws InvalidConfigException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new InvalidConfigException("config file " + file + ": no such file", e);
        } catch (AccessDeniedException e) {
            throw new InvalidConfigException("config file " + file + ": permission denied", e);
        } catch (IOException e) {
            throw new InvalidConfigException("config file " + file + ": cannot read: " + e.getMessage(), e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidConfigException("config file " + file + ": not UTF-8 text", e);
        }
        return parse(file.toString(), text);
    }

    /** Parses YAML {@code text}; {@code name} is how messages call the document. */
    public static Loaded parse(String name, String text) throws InvalidConfigException {
        List<String> warnings = new ArrayList<>();
        ObjectMapper mapper = YAMLMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .addHandler(new WarnOnUnknownField(name, warnings))
                .build();
        Document document;
        try (JsonParser parser = mapper.createParser(text)) {
            // described before the parser closes: Jackson 3's errors no longer carry the token or the path they hit
            try {
                if (parser.nextToken() == null) {
                    throw new InvalidConfigException(name + ": the file is empty; expected a top-level permittedHostDevices: block");
                }
                document = mapper.readValue(parser, Document.class);
            } catch (JacksonException e) {
                throw new InvalidConfigException(describe(name, e, parser), e);
            }
        }
        if (document == null || document.permittedHostDevices == null) {
            throw new InvalidConfigException(name + ": no top-level permittedHostDevices: block"
                    + " (write 'permittedHostDevices: {}' to permit nothing)");
        }
        return new Loaded(document.permittedHostDevices.toRecord(), warnings);
    }

    private static String describe(String name, JacksonException e, JsonParser parser) {
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

    private static final class WarnOnUnknownField extends DeserializationProblemHandler {
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
