package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class HeapHistogramTest {

    private static final String EARLIER = """
            12345:
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:         28116        4976752  [B (java.base@25.0.3)
               2:         26738         641712  java.lang.String (java.base@25.0.3)
               3:           100           3200  io.vfiodp.plugin.Served
            Total         54954        5621664
            """;

    private static final String LATER = """
            12345:
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:         28110        4976000  [B (java.base@25.0.3)
               2:         26938         646512  java.lang.String (java.base@25.0.3)
               3:           300           9600  io.vfiodp.plugin.Served
               4:           232          99136  [Ljdk.internal.vm.FillerElement; (java.base@25.0.3)
               5:             2             64  io.grpc.New
            Total         55582        5731312
            """;

    @Test
    void growthListsTheClassesThatGrewMostInBytesFirstAndLeavesOutThoseThatShrankAndHeapFillers() throws IOException {
        assertThat(HeapHistogram.parse(LATER).growthSince(HeapHistogram.parse(EARLIER), 10)).containsExactly(
                "     +6400 B     +200 instances  io.vfiodp.plugin.Served",
                "     +4800 B     +200 instances  java.lang.String",
                "       +64 B       +2 instances  io.grpc.New");
    }

    @Test
    void growthStopsAtTop() throws IOException {
        assertThat(HeapHistogram.parse(LATER).growthSince(HeapHistogram.parse(EARLIER), 1)).hasSize(1);
    }

    @Test
    void anAnswerWithoutRowsIsAnError() {
        assertThatThrownBy(() -> HeapHistogram.parse("12345:\nGC.class_histogram is not available\n"))
                .isInstanceOf(IOException.class)
                .hasMessage("no class rows in GC.class_histogram: [12345:, GC.class_histogram is not available]");
    }
}
