package io.vfiodp.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class CreatableVgpuTypesTest {

    private static CreatableVgpuTypes parse(String text) {
        return CreatableVgpuTypes.parse(text);
    }

    @Test
    void readsTheDriversIdColonNameLines() {
        assertThat(parse("1428 : NVIDIA H200X-141C\n1414 : NVIDIA H200X-1-18C\n").types())
                .containsExactly(new VgpuType(1428, "NVIDIA H200X-141C"), new VgpuType(1414, "NVIDIA H200X-1-18C"));
    }

    @Test
    void skipsTheDriversHeaderLine() {
        CreatableVgpuTypes parsed = parse("ID    : vGPU Name\n1150  : NVIDIA L40S-4Q\n");
        assertThat(parsed.types()).containsExactly(new VgpuType(1150, "NVIDIA L40S-4Q"));
        assertThat(parsed.badLines()).isEmpty();
    }

    @Test
    void readsNameThenIdLines() {
        assertThat(parse("NVIDIA L40S-1Q   1147\nNVIDIA L40S-2Q\t1148\n").types())
                .containsExactly(new VgpuType(1147, "NVIDIA L40S-1Q"), new VgpuType(1148, "NVIDIA L40S-2Q"));
    }

    @Test
    void readsIdThenNameLinesWithoutColon() {
        assertThat(parse("1147 NVIDIA L40S-1Q\n").types()).containsExactly(new VgpuType(1147, "NVIDIA L40S-1Q"));
    }

    @Test
    void collapsesWhitespaceInsideNames() {
        assertThat(parse("1147 :   NVIDIA    L40S-1Q  \n").types()).containsExactly(new VgpuType(1147, "NVIDIA L40S-1Q"));
    }

    @Test
    void emptyFileMeansNothingCreatable() {
        CreatableVgpuTypes parsed = parse("");
        assertThat(parsed.types()).isEmpty();
        assertThat(parsed.badLines()).isEmpty();
    }

    @Test
    void blankLinesAreIgnored() {
        assertThat(parse("\n\n1150 : NVIDIA L40S-4Q\n\n").types()).containsExactly(new VgpuType(1150, "NVIDIA L40S-4Q"));
    }

    @Test
    void laterUnreadableLinesAreReportedAndSkipped() {
        CreatableVgpuTypes parsed = parse("1150 : NVIDIA L40S-4Q\nsomething odd\n0 : NVIDIA none\n12 34\n1151 : NVIDIA L40S-6Q\n");
        assertThat(parsed.types()).containsExactly(new VgpuType(1150, "NVIDIA L40S-4Q"), new VgpuType(1151, "NVIDIA L40S-6Q"));
        assertThat(parsed.badLines()).containsExactly("something odd", "0 : NVIDIA none", "12 34");
    }

    @Test
    void anyUnreadableFirstLineIsTakenAsAHeader() {
        CreatableVgpuTypes parsed = parse("Name                 Type ID\nNVIDIA L40S-1Q   1147\n");
        assertThat(parsed.types()).containsExactly(new VgpuType(1147, "NVIDIA L40S-1Q"));
        assertThat(parsed.badLines()).isEmpty();
    }

    @Test
    void namesAnIdItLists() {
        CreatableVgpuTypes parsed = parse("1150 : NVIDIA L40S-4Q\n1151 : NVIDIA L40S-6Q\n");
        assertThat(parsed.nameOf(1151)).contains("NVIDIA L40S-6Q");
        assertThat(parsed.nameOf(1152)).isEmpty();
    }

    @Test
    void keepsFileOrder() {
        assertThat(parse("1152 : B\n1150 : A\n").types()).extracting(VgpuType::id).isEqualTo(List.of(1152, 1150));
    }
}
