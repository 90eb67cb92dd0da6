package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Reading the answers of the JVM's diagnostic commands (captured from JDK 25). */
class ProcessProbeTest {

    @Test
    void serialHeapUseIsTheSumOfBothGenerations() throws IOException {
        String heapInfo = """
                DefNew     total 6784K, used 60K [0x00000000fe000000, 0x00000000fe750000, 0x00000000feaa0000)
                 eden space 6080K,   1% used [0x00000000fe000000, 0x00000000fe00f340, 0x00000000fe5f0000)
                 from space 704K,   0% used [0x00000000fe5f0000, 0x00000000fe5f0000, 0x00000000fe6a0000)
                 to   space 704K,   0% used [0x00000000fe6a0000, 0x00000000fe6a0000, 0x00000000fe750000)
                Tenured    total 14880K, used 8927K [0x00000000feaa0000, 0x00000000ff928000, 0x0000000100000000)
                 the  space 14880K,  59% used [0x00000000feaa0000, 0x00000000ff357fe8, 0x00000000ff928000)
                """;

        assertThat(ProcessProbe.heapUsedMiB(heapInfo)).isEqualTo((60 + 8927) / 1024.0);
    }

    @Test
    void g1HeapUseIsItsOneHeapLine() throws IOException {
        String heapInfo = """
                 garbage-first heap   total 258048K, used 5120K [0x0000000707000000, 0x0000000800000000)
                  region size 1024K, 6 young (6144K), 0 survivors (0K)
                 Metaspace       used 1152K, committed 1280K, reserved 1114112K
                """;

        assertThat(ProcessProbe.heapUsedMiB(heapInfo)).isEqualTo(5.0);
    }

    @Test
    void aHeapInfoWithoutGenerationLinesIsAnErrorQuotingIt() {
        assertThatThrownBy(() -> ProcessProbe.heapUsedMiB(" ZHeap           used 6M, capacity 16M, max capacity 32M\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no 'total NK, used NK' line in GC.heap_info")
                .hasMessageContaining("ZHeap           used 6M");
    }

    @Test
    void metaspaceUseIsReadFromTheFirstLineOfVmMetaspace() throws IOException {
        String metaspace = """
                Metaspace        used 11782K, committed 12032K, reserved 1114112K
                 class space     used 1481K, committed 1600K, reserved 1048576K
                """;

        assertThat(ProcessProbe.metaspaceUsedMiB(metaspace)).isEqualTo(11782 / 1024.0);
    }
}
