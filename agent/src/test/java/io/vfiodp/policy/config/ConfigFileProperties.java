package io.vfiodp.policy.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.vfiodp.checkout.Checkout;
import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.fixtures.FixtureNodes;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import io.vfiodp.inventory.SuggestedConfig;
import io.vfiodp.policy.PolicyEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The {@code --config} reader on valid documents changed at random: every result parses, or is
 * exactly one {@link InvalidConfigException} whose message is one line naming the document and
 * the line (and, for a value of the wrong kind, the field), in words; never another exception.
 */
class ConfigFileProperties {

    private static final String NAME = "config.yaml";
    private static final Pattern EXAMPLE = Pattern.compile("<!-- example: (\\S+)[^\\n]*-->\\n```yaml\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern LOCATION = Pattern.compile("^" + Pattern.quote(NAME) + " line (\\d+), column (\\d+)(, field [^:]+|, at the top level)?: \\S");
    private static final List<String> WHOLE_DOCUMENT_ERRORS = List.of(
            NAME + ": the file is empty; expected a top-level permittedHostDevices: block",
            NAME + ": no top-level permittedHostDevices: block (write 'permittedHostDevices: {}' to permit nothing)");
    /** ConfigFile's words for a value of the wrong kind, which must say where it is. */
    private static final Pattern WRONG_KIND =
            Pattern.compile("(: expected|' is not) (a mapping \\(key: value\\)|a string|a list|true or false)(, found |$)");
    /** What a stack trace or a library's internals look like in a message. */
    // a class or nested class name, a stack frame, Jackson's source locator: never in a message to a user; what the
    // message quotes from the document ('...') is the user's own text, which the mutations may fill with anything
    private static final Pattern INTERNALS = Pattern.compile("[a-z]+\\.[a-z]+\\.[a-z.]*[A-Z]|Exception|\\bat \\[Source|\\w\\$\\w");
    private static final Pattern QUOTED = Pattern.compile("'[^'\\n]*'");

    private List<String> documents;

    /** A document changed by a list of edits, for readable failures. */
    record Mutated(String original, List<Edit> edits, String text) {
        @Override
        public String toString() {
            return edits + " of:\n" + original + "\n=> text:\n" + text;
        }
    }

    record Edit(Kind kind, int at, String piece) {
        enum Kind { INSERT, DELETE_CHAR, DELETE_LINE, DUPLICATE_LINE, INDENT_LINE, REPLACE_VALUE, TRUNCATE }

        String apply(String text) {
            if (text.isEmpty()) return piece;
            int i = Math.floorMod(at, text.length());
            List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
            int line = Math.floorMod(at, lines.size());
            return switch (kind) {
                case INSERT -> text.substring(0, i) + piece + text.substring(i);
                case DELETE_CHAR -> text.substring(0, i) + text.substring(i + 1);
                case DELETE_LINE -> {
                    lines.remove(line);
                    yield String.join("\n", lines);
                }
                case DUPLICATE_LINE -> {
                    lines.add(line, lines.get(line));
                    yield String.join("\n", lines);
                }
                case INDENT_LINE -> {
                    lines.set(line, piece.replaceAll("[^ \\t]", " ") + lines.get(line));
                    yield String.join("\n", lines);
                }
                case REPLACE_VALUE -> {
                    String l = lines.get(line);
                    int colon = l.indexOf(": ");
                    lines.set(line, colon < 0 ? l + ": " + piece : l.substring(0, colon + 2) + piece);
                    yield String.join("\n", lines);
                }
                case TRUNCATE -> text.substring(0, i);
            };
        }

        @Override
        public String toString() {
            return kind + "@" + at + (piece.isEmpty() ? "" : "'" + piece.replace("\n", "\\n").replace("\t", "\\t") + "'");
        }
    }

    @Property(tries = 1500)
    void anyChangedDocumentParsesOrIsOneClearErrorNamingItsLine(@ForAll("mutatedDocuments") Mutated doc) {
        oneClearErrorNamingItsLine(doc);
    }

    // a mutation once gave a flag the value "$", which the message quotes: the user's text, not a nested class's name
    @Example
    void aValueQuotedFromTheDocumentIsNotTakenForInternals() {
        String text = "permittedHostDevices:\n  pciHostDevices:\n  - pciVendorSelector: \"10DE:1EB8\"\n    resourceName: nvidia.com/T4\n"
                + "    externalResourceProvider: $\n";
        assertThat(catchThrowable(() -> ConfigFile.parse(NAME, text))).hasMessageContaining("'$'");
        oneClearErrorNamingItsLine(new Mutated(text, List.of(), text));
    }

    private static void oneClearErrorNamingItsLine(Mutated doc) {
        Throwable t = catchThrowable(() -> ConfigFile.parse(NAME, doc.text()));
        if (t == null) return;

        assertThat(t).isExactlyInstanceOf(InvalidConfigException.class);
        String message = t.getMessage();
        assertThat(message).doesNotContain("\n");
        assertThat(QUOTED.matcher(message).replaceAll("''")).as(message).doesNotContainPattern(INTERNALS);
        if (WHOLE_DOCUMENT_ERRORS.contains(message)) return;
        Matcher m = LOCATION.matcher(message);
        assertThat(m.find()).as("names the line: %s", message).isTrue();
        int line = Integer.parseInt(m.group(1));
        assertThat(line).isBetween(1, (int) doc.text().lines().count() + 1);
        if (WRONG_KIND.matcher(message).find()) {
            assertThat(m.group(3)).as("names the field: %s", message).isNotNull();
        }
    }

    @Provide
    Arbitrary<Mutated> mutatedDocuments() {
        Arbitrary<String> piece = Arbitraries.oneOf(
                Arbitraries.of(":", "-", " ", "\t", "\n", "[", "]", "{", "}", "\"", "'", "&a", "*a", "!!str", "!!binary", "#", "%YAML 1.1\n",
                        "@", "`", "|", ">", "? ", "---\n", "...\n", "\\", "\u0000", "\ufeff", "~", "null", "true", "[]", "{}",
                        "0x10", "1e400", "\"\\u00\"", "<<: *a", "&a [*a]", "- - -"),
                Arbitraries.strings().ofMaxLength(4));
        Arbitrary<Edit> edit = Combinators.combine(Arbitraries.of(Edit.Kind.values()), Arbitraries.integers().between(0, 5000), piece)
                .as(Edit::new);
        return Combinators.combine(Arbitraries.of(documents()), edit.list().ofMinSize(1).ofMaxSize(5)).as((original, edits) -> {
            String text = original;
            for (Edit e : edits) text = e.apply(text);
            return new Mutated(original, edits, text);
        });
    }

    /** The guide's configuration files, its CRs' permittedHostDevices as files, and each fixture's suggested config. */
    private List<String> documents() {
        if (documents != null) return documents;
        try {
            List<String> out = new ArrayList<>();
            ObjectMapper yaml = new YAMLMapper();
            Matcher m = EXAMPLE.matcher(Files.readString(Checkout.path("docs/permitted-host-devices.md")));
            while (m.find()) {
                if (m.group(1).startsWith("config-") || m.group(1).startsWith("suggested-")) out.add(m.group(2));
                if (m.group(1).startsWith("cr-")) {
                    JsonNode permitted = yaml.readTree(m.group(2)).path("spec").path("configuration").path("permittedHostDevices");
                    if (!permitted.isMissingNode()) {
                        out.add(yaml.writeValueAsString(yaml.createObjectNode().set("permittedHostDevices", permitted)));
                    }
                }
            }
            PciIds ids = PciIds.bundled();
            for (String node : FixtureNodes.NODES) {
                HostSnapshot s = new SysfsScanner(SysfsFixtures.sys(node), SysfsFixtures.dev(node)).scan();
                out.add(SuggestedConfig.yaml(s, PolicyEngine.evaluate(s, Optional.empty(), ids), ids));
            }
            documents = List.copyOf(out);
            return documents;
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the example documents", e);
        }
    }
}
