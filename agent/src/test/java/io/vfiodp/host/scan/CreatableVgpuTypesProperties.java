package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.VgpuType;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@code creatable_vgpu_types}: both line forms read back exactly; any content is read without failing. */
class CreatableVgpuTypesProperties {

    private enum Form { ID_COLON_NAME, NAME_ID, ID_NAME }

    /** A type as one line of the file, in one of the forms NVIDIA's driver and tools print. */
    record Line(VgpuType type, Form form, String gap) {
        String text() {
            return switch (form) {
                case ID_COLON_NAME -> type.id() + gap + ":" + gap + type.name();
                case NAME_ID -> type.name() + gap + type.id();
                case ID_NAME -> type.id() + gap + type.name();
            };
        }
    }

    @Property(tries = 400)
    void typesWrittenInEitherFormReadBackInFileOrder(@ForAll("lines") List<Line> lines, @ForAll("headers") String header,
                                                     @ForAll("lineEnds") String lineEnd) {
        StringBuilder text = new StringBuilder(header.isEmpty() ? "" : header + lineEnd);
        for (Line l : lines) text.append(l.text()).append(lineEnd);

        CreatableVgpuTypes parsed = CreatableVgpuTypes.parse(text.toString());

        assertThat(parsed.types()).containsExactlyElementsOf(lines.stream().map(Line::type).toList());
        assertThat(parsed.badLines()).isEmpty();
    }

    @Property(tries = 500)
    void anyContentGivesEachLineAfterTheFirstAsATypeOrAsNotUnderstood(@ForAll("contents") String content) {
        CreatableVgpuTypes parsed = CreatableVgpuTypes.parse(content);

        long lines = content.lines().map(String::strip).filter(l -> !l.isEmpty()).count();
        assertThat((long) parsed.types().size() + parsed.badLines().size()).isBetween(Math.max(0, lines - 1), lines);
        assertThat(parsed.types()).allSatisfy(t -> {
            assertThat(t.id()).isPositive();
            assertThat(t.name()).isNotBlank().isEqualTo(t.name().strip()).doesNotContainPattern("[ \\t]{2}|[\\t\\r\\n]");
        });
    }

    @Provide
    Arbitrary<List<Line>> lines() {
        Arbitrary<String> word = Arbitraries.strings().withChars("NVIDAL40S-QCBH0123456789").ofMinLength(1).ofMaxLength(8);
        Arbitrary<String> lettered = Arbitraries.strings().withChars("NVIDALSQCBH").ofMinLength(1).ofMaxLength(3)
                .flatMap(letters -> word.map(w -> letters + w));
        // a name's first and last words hold a letter, or a number there would read as the id
        Arbitrary<String> name = Combinators.combine(lettered, word.list().ofMaxSize(2), lettered)
                .as((first, middle, last) -> String.join(" ", java.util.stream.Stream.concat(
                        java.util.stream.Stream.concat(java.util.stream.Stream.of(first), middle.stream()), java.util.stream.Stream.of(last)).toList()));
        Arbitrary<VgpuType> type = Combinators.combine(Arbitraries.integers().between(1, 999_999_999), name).as(VgpuType::new);
        return Combinators.combine(type, Arbitraries.of(Form.values()), Arbitraries.of(" ", "\t", "   ", " \t "))
                .as(Line::new).list().ofMaxSize(8);
    }

    @Provide
    Arbitrary<String> headers() {
        return Arbitraries.of("", "ID    : vGPU Name", "Name                 Type ID", "vGPU types");
    }

    @Provide
    Arbitrary<String> lineEnds() {
        return Arbitraries.of("\n", "\r\n", "\n\n");
    }

    @Provide
    Arbitrary<String> contents() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withChars("0123456789 :\t\nNVIDA-Q").ofMaxLength(60),
                Arbitraries.strings().ofMaxLength(60),
                lines().map(ls -> String.join("\n", ls.stream().map(Line::text).toList()))
                        .flatMap(t -> Arbitraries.integers().between(0, t.length()).map(i -> t.substring(0, i) + ":" + t.substring(i))));
    }
}
