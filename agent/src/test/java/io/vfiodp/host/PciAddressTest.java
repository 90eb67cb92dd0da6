package io.vfiodp.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class PciAddressTest {

    /** A record with PciAddress's components and the generated equals and hashCode. */
    record Generated(int domain, int bus, int slot, int function) {}

    @Test
    void equalsAndHashCodeAreTheGeneratedOnes() {
        List<PciAddress> addresses = new ArrayList<>();
        for (int domain : new int[] {0, 1, 0x10de, 0xffff}) {
            for (int bus : new int[] {0, 0x3b, 0xff}) {
                for (int slot : new int[] {0, 1, 0x1f}) {
                    for (int function = 0; function <= 7; function += 7) addresses.add(new PciAddress(domain, bus, slot, function));
                }
            }
        }
        for (PciAddress a : addresses) {
            Generated g = new Generated(a.domain(), a.bus(), a.slot(), a.function());
            assertThat(a.hashCode()).as("%s", a).isEqualTo(g.hashCode());
            for (PciAddress b : addresses) {
                assertThat(a.equals(b)).as("%s equals %s", a, b).isEqualTo(g.equals(new Generated(b.domain(), b.bus(), b.slot(), b.function())));
            }
            assertThat(a.equals(null)).isFalse();
            assertThat(a.equals(g)).isFalse();
            assertThat(a).isEqualTo(new PciAddress(a.domain(), a.bus(), a.slot(), a.function()));
        }
    }

    @ParameterizedTest
    @CsvSource({
            "0000:00:00.0, 0, 0, 0, 0",
            "0000:3b:00.0, 0, 59, 0, 0",
            "0000:01:00.3, 0, 1, 0, 3",
            "0000:41:01.7, 0, 65, 1, 7",
            "0000:ff:1f.7, 0, 255, 31, 7",
            "ffff:00:00.0, 65535, 0, 0, 0",
            "10de:a0:1e.2, 4318, 160, 30, 2",
    })
    void parsesTheSysfsForm(String text, int domain, int bus, int slot, int function) {
        assertThat(PciAddress.parse(text)).isEqualTo(new PciAddress(domain, bus, slot, function));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0000:00:00.0", "0000:3b:00.0", "0000:ff:1f.7", "ffff:ab:0c.5", "0001:99:04.3"})
    void printsExactlyWhatItParsed(String text) {
        assertThat(PciAddress.parse(text).toString()).isEqualTo(text);
    }

    @Test
    void printsFourDigitDomainAndTwoDigitBusAndSlotInLowerCase() {
        assertThat(new PciAddress(0, 0x3b, 0x1, 0x5).toString()).isEqualTo("0000:3b:01.5");
        assertThat(new PciAddress(0xabcd, 0xef, 0x1f, 0x7).toString()).isEqualTo("abcd:ef:1f.7");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {
            "3b:00.0",          // no domain (lspci's short form)
            "0000:3B:00.0",     // upper case never appears in sysfs
            "0000:3b:00.8",     // function > 7
            "0000:3b:20.0",     // slot > 0x1f
            "0000:3b:00",       // no function
            "0000:3b:00.0 ",    // trailing blank
            " 0000:3b:00.0",
            "0000:3b:00.0\n",
            "00000:3b:00.0",    // 5-digit domain
            "000:3b:00.0",
            "0000:3b:0.0",
            "0000-3b-00.0",
            "0000:3b:00:0",
            "0000:0g:00.0",
            "garbage",
            "4b3a6c3e-6a2f-4e4c-9c0e-1a2b3c4d5e01",
    })
    void rejectsAnythingButTheSysfsForm(String text) {
        assertThat(PciAddress.tryParse(text)).isEmpty();
    }

    @Test
    void parseNamesTheOffendingText() {
        assertThatThrownBy(() -> PciAddress.parse("3b:00.0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'3b:00.0'")
                .hasMessageContaining("DDDD:BB:SS.F");
    }

    @ParameterizedTest
    @CsvSource({"-1, 0, 0, 0", "65536, 0, 0, 0", "0, 256, 0, 0", "0, -1, 0, 0", "0, 0, 32, 0", "0, 0, 0, 8", "0, 0, 0, -1"})
    void constructorRejectsOutOfRangeParts(int domain, int bus, int slot, int function) {
        assertThatThrownBy(() -> new PciAddress(domain, bus, slot, function)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ordersByDomainThenBusThenSlotThenFunction() {
        List<PciAddress> expected = List.of(
                PciAddress.parse("0000:00:01.0"),
                PciAddress.parse("0000:00:01.1"),
                PciAddress.parse("0000:00:02.0"),
                PciAddress.parse("0000:01:00.0"),
                PciAddress.parse("0000:ff:1f.7"),
                PciAddress.parse("0001:00:00.0"),
                PciAddress.parse("7fff:00:00.0"),
                PciAddress.parse("8000:00:00.0"),
                PciAddress.parse("ffff:00:00.0"));
        List<PciAddress> shuffled = new ArrayList<>(expected);
        Collections.reverse(shuffled);
        Collections.swap(shuffled, 1, 5);

        Collections.sort(shuffled);

        assertThat(shuffled).containsExactlyElementsOf(expected);
    }

    @Test
    void equalAddressesCompareAsZero() {
        assertThat(PciAddress.parse("0000:3b:00.0").compareTo(new PciAddress(0, 0x3b, 0, 0))).isZero();
    }

    @Test
    void withFunctionKeepsTheSlot() {
        assertThat(PciAddress.parse("0000:01:00.0").withFunction(3)).isEqualTo(PciAddress.parse("0000:01:00.3"));
    }

    @Test
    void sameSlotIgnoresOnlyTheFunction() {
        PciAddress gpu = PciAddress.parse("0000:01:00.0");
        assertThat(gpu.sameSlot(PciAddress.parse("0000:01:00.1"))).isTrue();
        assertThat(gpu.sameSlot(PciAddress.parse("0000:01:01.0"))).isFalse();
        assertThat(gpu.sameSlot(PciAddress.parse("0001:01:00.0"))).isFalse();
    }
}
