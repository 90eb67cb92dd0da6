package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.vfiodp.host.PciAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The env-var contract of MISSION.md for any valid resource name and device set. */
class KubeVirtEnvProperties {

    @Property(tries = 500)
    void variableNameIsThePrefixAndTheNameUpperCasedWithSlashAndDotAsUnderscore(
            @ForAll("resourceNames") ResourceName name, @ForAll DeviceKind kind) {
        StringBuilder expected = new StringBuilder(kind == DeviceKind.PCI ? "PCI_RESOURCE_" : "MDEV_PCI_RESOURCE_");
        for (char c : name.value().toCharArray()) {
            expected.append(c == '/' || c == '.' ? '_' : c >= 'a' && c <= 'z' ? (char) (c - 'a' + 'A') : c);
        }

        assertThat(KubeVirtEnv.variableName(kind, name)).isEqualTo(expected.toString()).matches("[A-Z0-9_-]+");
        assertThat(KubeVirtEnv.variableName(kind, name.value())).isEqualTo(expected.toString());
    }

    @Property(tries = 300)
    void companionsValueDecodesToWhatWasEncodedInOrder(@ForAll("companionTables") Map<PciAddress, List<PciAddress>> table) {
        String value = KubeVirtEnv.encodeCompanions(table);

        assertThat(value).doesNotContain(" ");
        assertThat(KubeVirtEnv.decodeCompanions(value)).containsExactlyEntriesOf(table);
    }

    @Property(tries = 500)
    void anyCompanionsValueDecodesOrIsRefusedAsAnIllegalArgument(@ForAll("companionValues") String value) {
        Throwable t = catchThrowable(() -> KubeVirtEnv.decodeCompanions(value));

        if (t != null) assertThat(t).isExactlyInstanceOf(IllegalArgumentException.class).message().isNotBlank();
    }

    @Provide
    Arbitrary<ResourceName> resourceNames() {
        return ResourceNameArbitraries.valid();
    }

    @Provide
    Arbitrary<Map<PciAddress, List<PciAddress>>> companionTables() {
        Arbitrary<PciAddress> address = io.vfiodp.host.PciAddressArbitraries.addresses();
        return Arbitraries.maps(address, address.list().ofMaxSize(3)).ofMaxSize(5).map(LinkedHashMap::new);
    }

    @Provide
    Arbitrary<String> companionValues() {
        return Arbitraries.oneOf(
                companionTables().map(KubeVirtEnv::encodeCompanions).flatMap(v -> Arbitraries.integers().between(0, Math.max(0, v.length()))
                        .flatMap(i -> Arbitraries.of(",", "=", "+", "", "x", "0000:00:00.8").map(c -> v.substring(0, i) + c + v.substring(i)))),
                Arbitraries.strings().withChars("0a:.=+,").ofMaxLength(30),
                Arbitraries.strings().ofMaxLength(30));
    }
}
