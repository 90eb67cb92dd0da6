package io.vfiodp.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Optional;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** {@link PciAddress}: the sysfs form round-trips; anything else is one clear refusal. */
class PciAddressProperties {

    /** sysfs's own form, independent of the parser under test. */
    private static final Pattern SYSFS_FORM = Pattern.compile("[0-9a-f]{4}:[0-9a-f]{2}:[01][0-9a-f]\\.[0-7]");

    @Property(tries = 300)
    void everyAddressPrintsInSysfsFormAndParsesBack(@ForAll("addresses") PciAddress a) {
        String text = a.toString();

        assertThat(text).matches(SYSFS_FORM);
        assertThat(PciAddress.parse(text)).isEqualTo(a);
        assertThat(PciAddress.tryParse(text)).contains(a);
    }

    @Property(tries = 300)
    void orderIsTheOrderOfTheSysfsText(@ForAll("addresses") PciAddress a, @ForAll("addresses") PciAddress b) {
        assertThat(Integer.signum(a.compareTo(b))).isEqualTo(Integer.signum(a.toString().compareTo(b.toString())));
    }

    @Property(tries = 500)
    void anyTextParsesExactlyWhenInSysfsFormAndOtherwiseIsRefusedNamingIt(@ForAll("nearAddresses") String text) {
        Optional<PciAddress> parsed = PciAddress.tryParse(text);
        Throwable refused = catchThrowable(() -> PciAddress.parse(text));

        if (text != null && SYSFS_FORM.matcher(text).matches()) {
            assertThat(parsed).map(PciAddress::toString).contains(text);
            assertThat(refused).isNull();
        } else {
            assertThat(parsed).isEmpty();
            assertThat(refused).isExactlyInstanceOf(IllegalArgumentException.class)
                    .hasMessage("not a PCI address (expected DDDD:BB:SS.F, lower-case hex): '" + text + "'");
        }
    }

    @Property(tries = 300)
    void constructorTakesInRangeFieldsAndRefusesOthersNamingTheField(
            @ForAll @IntRange(min = -2, max = 0x10001) int domain, @ForAll @IntRange(min = -2, max = 0x101) int bus,
            @ForAll @IntRange(min = -2, max = 0x21) int slot, @ForAll @IntRange(min = -2, max = 9) int function) {
        Throwable refused = catchThrowable(() -> new PciAddress(domain, bus, slot, function));

        String firstBad = domain < 0 || domain > 0xffff ? "domain" : bus < 0 || bus > 0xff ? "bus"
                : slot < 0 || slot > 0x1f ? "slot" : function < 0 || function > 7 ? "function" : null;
        if (firstBad == null) {
            assertThat(refused).isNull();
        } else {
            assertThat(refused).isExactlyInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("PCI " + firstBad + " out of range");
        }
    }

    @Provide
    Arbitrary<PciAddress> addresses() {
        return PciAddressArbitraries.addresses();
    }

    /** Valid addresses, each changed in one place or not at all, and arbitrary text. */
    @Provide
    Arbitrary<String> nearAddresses() {
        Arbitrary<String> valid = addresses().map(PciAddress::toString);
        Arbitrary<String> changed = Combinators.combine(valid, Arbitraries.integers().between(0, 12),
                Arbitraries.of('0', '7', '8', 'f', 'F', 'g', ':', '.', ' ', '\n', 'x', '-', '\u0660'),
                Arbitraries.of(Edit.values())).as(Edit::apply);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(2, valid),
                net.jqwik.api.Tuple.of(6, changed),
                net.jqwik.api.Tuple.of(2, Arbitraries.strings().ofMaxLength(16)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(null)));
    }

    private enum Edit {
        REPLACE, INSERT, DELETE, UPPER;

        static String apply(String text, int at, char c, Edit edit) {
            int i = Math.min(at, text.length() - 1);
            return switch (edit) {
                case REPLACE -> text.substring(0, i) + c + text.substring(i + 1);
                case INSERT -> text.substring(0, i) + c + text.substring(i);
                case DELETE -> text.substring(0, i) + text.substring(i + 1);
                case UPPER -> text.toUpperCase();
            };
        }
    }
}
