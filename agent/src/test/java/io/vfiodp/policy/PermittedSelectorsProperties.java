package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.policy.config.MediatedHostDevice;
import io.vfiodp.policy.config.PciHostDevice;
import io.vfiodp.policy.config.PermittedHostDevices;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** permittedHostDevices selectors as KubeVirt reads them; a bad entry is one error naming it. */
class PermittedSelectorsProperties {

    private static final Pattern VENDOR_DEVICE = Pattern.compile("[0-9a-fA-F]{4}:[0-9a-fA-F]{4}");
    private static final String NAME = "nvidia.com/GPU";

    @Property(tries = 1000)
    void pciSelectorSelectsItsVendorAndDeviceInAnyCaseOrIsOneErrorNamingIt(@ForAll("pciSelectors") String selector) {
        PermittedSelectors s = PermittedSelectors.of(new PermittedHostDevices(
                List.of(new PciHostDevice(selector, NAME, true)), List.of()));

        if (VENDOR_DEVICE.matcher(selector.strip()).matches()) {
            assertThat(s.forPci(selector.strip().toLowerCase(Locale.ROOT))).map(PermittedSelectors.Rule::resourceName)
                    .contains(ResourceName.of(NAME));
            assertThat(s.problems()).isEmpty();
        } else {
            assertThat(s.problems()).singleElement().satisfies(p -> {
                assertThat(p.severity()).isEqualTo(PolicyProblem.Severity.ERROR);
                assertThat(p.message()).startsWith("pciHostDevices[0] (pciVendorSelector '" + selector + "', resourceName '" + NAME + "') skipped: ");
            });
        }
    }

    @Property(tries = 300)
    void mdevSelectorWithAnyMixOfSpacesAndUnderscoresSelectsItsTypeCaseSensitively(
            @ForAll("typeNames") String typeName, @ForAll("spaceChoices") List<Boolean> underscore) {
        StringBuilder selector = new StringBuilder();
        int space = 0;
        for (char c : typeName.toCharArray()) {
            selector.append(c == ' ' && underscore.get(space++ % underscore.size()) ? '_' : c);
        }
        PermittedSelectors s = PermittedSelectors.of(new PermittedHostDevices(
                List.of(), List.of(new MediatedHostDevice(selector.toString(), NAME, true))));

        assertThat(s.problems()).isEmpty();
        assertThat(s.forMdevType(typeName)).map(PermittedSelectors.Rule::resourceName).contains(ResourceName.of(NAME));
        String otherCase = typeName.toLowerCase(Locale.ROOT).equals(typeName) ? typeName.toUpperCase(Locale.ROOT) : typeName.toLowerCase(Locale.ROOT);
        if (!otherCase.equals(typeName)) assertThat(s.forMdevType(otherCase)).isEmpty();
    }

    @Property(tries = 300)
    void everyEntryIsUsedOrExplainedByName(@ForAll("pciEntries") List<PciHostDevice> pci, @ForAll("mdevEntries") List<MediatedHostDevice> mdev) {
        PermittedSelectors s = PermittedSelectors.of(new PermittedHostDevices(pci, mdev));

        for (int i = 0; i < pci.size(); i++) {
            String label = "pciHostDevices[" + i + "]";
            boolean used = s.forPci(pci.get(i).pciVendorSelector().strip().toLowerCase(Locale.ROOT))
                    .filter(r -> r.label().equals(label)).isPresent();
            assertThat(used || s.problems().stream().anyMatch(p -> p.message().contains(label + " "))).as(label).isTrue();
        }
        for (int i = 0; i < mdev.size(); i++) {
            String label = "mediatedDevices[" + i + "]";
            boolean used = s.forMdevType(mdev.get(i).mdevNameSelector()).filter(r -> r.label().equals(label)).isPresent();
            assertThat(used || s.problems().stream().anyMatch(p -> p.message().contains(label + " "))).as(label).isTrue();
        }
    }

    @Provide
    Arbitrary<String> pciSelectors() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withChars("0123456789abcdefABCDEFgG: \t").ofMaxLength(11),
                Combinators.combine(Arbitraries.strings().withChars("0123456789abcdefABCDEF").ofLength(4),
                        Arbitraries.strings().withChars("0123456789abcdefABCDEF").ofLength(4),
                        Arbitraries.of("", " ", "\n", "x")).as((v, d, pad) -> pad + v + ":" + d + pad),
                Arbitraries.strings().ofMaxLength(12));
    }

    @Provide
    Arbitrary<String> typeNames() {
        return Arbitraries.strings().withChars("GRIDTA1QBCNVdefq-0123456789").ofMinLength(1).ofMaxLength(8)
                .list().ofMinSize(1).ofMaxSize(4).map(words -> String.join(" ", words));
    }

    @Provide
    Arbitrary<List<Boolean>> spaceChoices() {
        return Arbitraries.of(true, false).list().ofMinSize(1).ofMaxSize(4);
    }

    @Provide
    Arbitrary<List<PciHostDevice>> pciEntries() {
        return Combinators.combine(Arbitraries.oneOf(pciSelectors(), Arbitraries.of("10DE:1EB8", "10de:1eb8", "10de:2236")),
                resourceNames(), Arbitraries.of(true, false)).as(PciHostDevice::new).list().ofMaxSize(5);
    }

    @Provide
    Arbitrary<List<MediatedHostDevice>> mdevEntries() {
        return Combinators.combine(Arbitraries.oneOf(typeNames(), Arbitraries.of("", " ", "GRID\tT4", "GRID_T4-1Q")),
                resourceNames(), Arbitraries.of(true, false)).as(MediatedHostDevice::new).list().ofMaxSize(5);
    }

    private static Arbitrary<String> resourceNames() {
        return Arbitraries.of(NAME, "nvidia.com/T4", "nvidia.com/GRID_T4-1Q", "GPU", "nvidia.com/", "kubernetes.io/gpu", "", " nvidia.com/T4 ");
    }
}
