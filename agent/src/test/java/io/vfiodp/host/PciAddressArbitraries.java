package io.vfiodp.host;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators of PCI addresses for properties in any package. */
public final class PciAddressArbitraries {

    private PciAddressArbitraries() {}

    /** Any valid address. */
    public static Arbitrary<PciAddress> addresses() {
        return Combinators.combine(Arbitraries.integers().between(0, 0xffff), Arbitraries.integers().between(0, 0xff),
                Arbitraries.integers().between(0, 0x1f), Arbitraries.integers().between(0, 7)).as(PciAddress::new);
    }
}
