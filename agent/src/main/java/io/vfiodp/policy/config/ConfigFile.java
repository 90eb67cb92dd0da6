package io.vfiodp.policy.config;

import io.vfiodp.host.RegularFile;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads the {@code --config} file: YAML with a top-level {@code permittedHostDevices:} block and an
 * optional {@code mediatedDevicesConfiguration:} block, in the KubeVirt CR's schema, both in one read. The document as a whole either parses or is one error naming the
 * file, line and field; fields we do not know are skipped with a warning (a typo such as
 * {@code resourcename} would otherwise silently lose a setting).
 */
public final class ConfigFile {

    /**
     * A parsed file and the warnings about fields it ignored.
     *
     * @param permittedHostDevices         the file's {@code permittedHostDevices:} block; a file with only a vGPU layout has
     *                                     none, and the default policy names the devices
     * @param mediatedDevicesConfiguration the file's {@code mediatedDevicesConfiguration:} block, when it has one
     */
    public record Loaded(Optional<PermittedHostDevices> permittedHostDevices, Optional<MediatedDevicesConfig> mediatedDevicesConfiguration,
                         List<String> warnings) {
        public Loaded {
            Objects.requireNonNull(permittedHostDevices, "permittedHostDevices");
            Objects.requireNonNull(mediatedDevicesConfiguration, "mediatedDevicesConfiguration");
            warnings = List.copyOf(warnings);
        }
    }

    private ConfigFile() {}

    public static Loaded read(Path file) throws InvalidConfigException {
        byte[] bytes;
        try (FileChannel ch = RegularFile.open(file, true)) {
            bytes = Channels.newInputStream(ch).readAllBytes();
        } catch (RegularFile.NotRegular e) {
            throw new InvalidConfigException("config file " + file + ": " + e.getReason(), e);
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
                .addHandler(new YamlProblem.WarnOnUnknownField(name, warnings))
                .build();
        ConfigDocument.Document document;
        try (JsonParser parser = mapper.createParser(text)) {
            // described before the parser closes: Jackson 3's errors no longer carry the token or the path they hit
            try {
                if (parser.nextToken() == null) {
                    throw new InvalidConfigException(name + ": the file is empty; expected a top-level permittedHostDevices: block");
                }
                document = mapper.readValue(parser, ConfigDocument.Document.class);
            } catch (JacksonException e) {
                throw new InvalidConfigException(YamlProblem.describe(name, e, parser), e);
            }
        }
        if (document == null || (document.permittedHostDevices == null && document.mediatedDevicesConfiguration == null)) {
            throw new InvalidConfigException(name + ": no top-level permittedHostDevices: block"
                    + " (write 'permittedHostDevices: {}' to permit nothing)");
        }
        return new Loaded(Optional.ofNullable(document.permittedHostDevices).map(ConfigDocument.Lists::toRecord),
                Optional.ofNullable(document.mediatedDevicesConfiguration).map(ConfigDocument.MdevBlock::toRecord), warnings);
    }

}
