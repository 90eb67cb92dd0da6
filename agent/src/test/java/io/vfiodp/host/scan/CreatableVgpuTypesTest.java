package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.VgpuType;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CreatableVgpuTypesTest {

    private static final VgpuType H200X_141C = new VgpuType(1428, "NVIDIA H200X-141C");
    private static final VgpuType H200X_1_18C = new VgpuType(1414, "NVIDIA H200X-1-18C");
    private static final VgpuType L40S_1Q = new VgpuType(1147, "NVIDIA L40S-1Q");
    private static final VgpuType L40S_2Q = new VgpuType(1148, "NVIDIA L40S-2Q");
    private static final VgpuType L40S_4Q = new VgpuType(1150, "NVIDIA L40S-4Q");
    private static final VgpuType L40S_6Q = new VgpuType(1151, "NVIDIA L40S-6Q");

    static Stream<Arguments> table() {
        return Stream.of(
                // what it shows, file content, types read, lines reported as not understood
                Arguments.of("driver form, id : name", "1428 : NVIDIA H200X-141C\n1414 : NVIDIA H200X-1-18C\n",
                        List.of(H200X_141C, H200X_1_18C), List.of()),
                Arguments.of("driver form with its header", "ID    : vGPU Name\n1150  : NVIDIA L40S-4Q\n",
                        List.of(L40S_4Q), List.of()),
                Arguments.of("tool form, name then id", "NVIDIA L40S-1Q   1147\nNVIDIA L40S-2Q\t1148\n",
                        List.of(L40S_1Q, L40S_2Q), List.of()),
                Arguments.of("tool form with a header", "Name                 Type ID\nNVIDIA L40S-1Q   1147\n",
                        List.of(L40S_1Q), List.of()),
                Arguments.of("id then name without colon", "1147 NVIDIA L40S-1Q\n", List.of(L40S_1Q), List.of()),
                Arguments.of("whitespace inside names collapsed", "1147 :   NVIDIA    L40S-1Q  \n", List.of(L40S_1Q), List.of()),
                Arguments.of("no trailing newline", "1150 : NVIDIA L40S-4Q", List.of(L40S_4Q), List.of()),
                Arguments.of("blank lines ignored", "\n\n1150 : NVIDIA L40S-4Q\n\n", List.of(L40S_4Q), List.of()),
                Arguments.of("empty file: nothing creatable", "", List.of(), List.of()),
                Arguments.of("file order kept", "1151 : NVIDIA L40S-6Q\n1150 : NVIDIA L40S-4Q\n", List.of(L40S_6Q, L40S_4Q), List.of()),
                Arguments.of("later unreadable lines reported and skipped",
                        "1150 : NVIDIA L40S-4Q\nsomething odd\n0 : NVIDIA none\n12 34\n1151 : NVIDIA L40S-6Q\n",
                        List.of(L40S_4Q, L40S_6Q), List.of("something odd", "0 : NVIDIA none", "12 34")),
                Arguments.of("id without name after the first line", "1151 : NVIDIA L40S-6Q\n1150 :\n", List.of(L40S_6Q), List.of("1150 :")),
                Arguments.of("name without id after the first line", "1150 : NVIDIA L40S-4Q\nNVIDIA L40S-6Q\n",
                        List.of(L40S_4Q), List.of("NVIDIA L40S-6Q")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("table")
    void readsBothLineFormsOfTheFile(String what, String content, List<VgpuType> types, List<String> badLines) {
        CreatableVgpuTypes parsed = CreatableVgpuTypes.parse(content);

        assertThat(parsed.types()).as("types").containsExactlyElementsOf(types);
        assertThat(parsed.badLines()).as("lines not understood").containsExactlyElementsOf(badLines);
    }

    @Test
    void aLoneCarriageReturnEndsALineAsANewlineDoes() {
        CreatableVgpuTypes parsed = CreatableVgpuTypes.parse("ID    : vGPU Name\r1150 : NVIDIA L40S-4Q\r");

        assertThat(parsed.types()).containsExactly(new VgpuType(1150, "NVIDIA L40S-4Q"));
        assertThat(parsed.badLines()).isEmpty();
    }

    @Test
    void namesAnIdItLists() {
        CreatableVgpuTypes parsed = CreatableVgpuTypes.parse("1150 : NVIDIA L40S-4Q\n1151 : NVIDIA L40S-6Q\n");

        assertThat(parsed.nameOf(1151)).contains("NVIDIA L40S-6Q");
        assertThat(parsed.nameOf(1152)).isEmpty();
    }
}
