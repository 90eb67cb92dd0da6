package io.vfiodp.host;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HexTest {

    @Test
    void printsWhatStringFormatPrints() {
        for (int value : new int[] {0, 1, 0xa, 0x10de, 0x1eb8, 0xffff, 0x10000, 0x030000, 0xffffff, 0x7fffffff, -1, Integer.MIN_VALUE}) {
            for (int digits = 1; digits <= 9; digits++) {
                assertThat(Hex.of(value, digits)).as("%d, %d digits", value, digits).isEqualTo(String.format("%0" + digits + "x", value));
            }
        }
    }

    @Test
    void padsWithZerosAndNeverCuts() {
        assertThat(Hex.of(0x10de, 4)).isEqualTo("10de");
        assertThat(Hex.of(0x3, 4)).isEqualTo("0003");
        assertThat(Hex.of(0x30000, 6)).isEqualTo("030000");
        assertThat(Hex.of(0x12345, 4)).isEqualTo("12345");
    }
}
