package io.vfiodp.host.scan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SysfsValuesTest {

    @ParameterizedTest
    @CsvSource({"0x10de, 65535, 4318", "0x030200, 16777215, 197120", "0xa1, 255, 161", "0x0, 255, 0", "0XFF, 255, 255"})
    void readsPciCoreHex(String text, int max, int expected) throws EntryUnreadable {
        assertThat(SysfsValues.hex(text, max, "f")).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10de", "0x", "0xZZZZ", "0x10de0x", "-0x1", "0x 10", "0x1ffffffff"})
    void rejectsWhatIsNotPciCoreHex(String text) {
        assertThatThrownBy(() -> SysfsValues.hex(text, 0xffffff, "bus/pci/devices/0000:01:00.0/vendor"))
                .isInstanceOf(EntryUnreadable.class)
                .hasMessageStartingWith("not a hex number");
    }

    @Test
    void rejectsHexAboveTheAttributesRange() {
        assertThatThrownBy(() -> SysfsValues.hex("0x10000", 0xffff, "vendor"))
                .isInstanceOf(EntryUnreadable.class)
                .hasMessage("out of range (max 0xffff): '0x10000'");
    }

    @ParameterizedTest
    @CsvSource({"-1, -1", "0, 0", "1, 1", "1150, 1150"})
    void readsDecimal(String text, int expected) throws EntryUnreadable {
        assertThat(SysfsValues.decimal(text, -1, 65535, "f")).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"banana", "-", "1.5", "0x10", "+1", "12345678901", " 1"})
    void rejectsWhatIsNotDecimal(String text) {
        assertThatThrownBy(() -> SysfsValues.decimal(text, -1, Integer.MAX_VALUE, "numa_node"))
                .isInstanceOf(EntryUnreadable.class)
                .hasMessageStartingWith("not a decimal number");
    }

    @Test
    void rejectsDecimalOutsideTheRange() {
        assertThatThrownBy(() -> SysfsValues.decimal("-2", -1, 65535, "numa_node"))
                .isInstanceOf(EntryUnreadable.class)
                .hasMessage("out of range [-1, 65535]: '-2'");
    }

    @Test
    void quotesUnprintableCharactersAndShortensLongValues() {
        assertThat(SysfsValues.quote("a\u0000b")).isEqualTo("'a\\u0000b'");
        assertThat(SysfsValues.quote("x".repeat(50))).isEqualTo("'" + "x".repeat(40) + "…'");
    }
}
