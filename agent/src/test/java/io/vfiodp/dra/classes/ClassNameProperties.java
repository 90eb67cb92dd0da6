package io.vfiodp.dra.classes;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.policy.ResourceName;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** DeviceClass names are DNS subdomains, and two resource names never share one. */
class ClassNameProperties {

    private static final String DRIVER = "vfio-device-plugin.io";
    private static final String DNS_SUBDOMAIN = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

    @Provide
    Arbitrary<ResourceName> resources() {
        Arbitrary<String> domain = Arbitraries.of("nvidia.com", "example.com", "a.b.example.org");
        // a name part's inner characters, weighted towards what tells names apart only by case and separators
        Arbitrary<String> inner = Arbitraries.strings().withChars("aAbBtT4_-.").ofMinLength(0).ofMaxLength(61);
        Arbitrary<Character> edge = Arbitraries.chars().with("aAbB09");
        return Combinators.combine(domain, edge, inner, edge).as((d, first, middle, last) -> ResourceName.of(d + "/" + first + middle + last));
    }

    @Property(tries = 2000)
    void aClassNameIsADnsSubdomainOfDnsLabels(@ForAll("resources") ResourceName resource) {
        String name = ExtendedResourceClasses.className(DRIVER, resource);

        assertThat(name).matches(DNS_SUBDOMAIN).hasSizeLessThanOrEqualTo(253);
        for (String label : name.split("\\.")) assertThat(label).hasSizeLessThanOrEqualTo(63);
    }

    @Property(tries = 2000)
    void twoResourceNamesNeverShareAClass(@ForAll("resources") ResourceName a, @ForAll("resources") ResourceName b) {
        if (a.equals(b)) return;

        assertThat(ExtendedResourceClasses.className(DRIVER, a)).isNotEqualTo(ExtendedResourceClasses.className(DRIVER, b));
    }

    @Property(tries = 2000)
    void namesThatDifferOnlyInCaseOrSeparatorGetClassesOfTheirOwn(@ForAll("resources") ResourceName a) {
        String swapped = a.domain() + "/" + a.name().chars().mapToObj(c -> String.valueOf(switch (c) {
            case '_' -> '-';
            case '-' -> '_';
            default -> Character.isUpperCase(c) ? Character.toLowerCase((char) c) : Character.toUpperCase((char) c);
        })).reduce("", String::concat);
        ResourceName b = ResourceName.of(swapped);
        if (a.equals(b)) return;

        assertThat(ExtendedResourceClasses.className(DRIVER, a)).isNotEqualTo(ExtendedResourceClasses.className(DRIVER, b));
    }
}
