package io.vfiodp.policy;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators of resource names for properties in any package. */
public final class ResourceNameArbitraries {

    private ResourceNameArbitraries() {}

    /** Valid names: domain labels and name parts from the characters the kubelet allows. */
    public static Arbitrary<ResourceName> valid() {
        Arbitrary<String> label = Arbitraries.strings().withChars("abcxyz0189").ofMinLength(1).ofMaxLength(6)
                .flatMap(l -> Arbitraries.of(l, l + "-" + l));
        Arbitrary<String> domain = label.list().ofMinSize(1).ofMaxSize(3).map(l -> String.join(".", l));
        Arbitrary<String> part = Combinators.combine(Arbitraries.strings().withChars("aZ9").ofLength(1),
                Arbitraries.strings().withChars("aZz09-_.").ofMaxLength(40), Arbitraries.strings().withChars("bY8").ofLength(1))
                .as((a, mid, b) -> a + mid + b);
        return Combinators.combine(domain, part).as((d, p) -> d + "/" + p)
                .filter(n -> ResourceName.problem(n).isEmpty()).map(ResourceName::of);
    }
}
