package io.vfiodp.testkit.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** v1helper.IsExtendedResourceName, as the kubelet applies it to a Register request. */
class ExtendedResourceNameTest {

    @ParameterizedTest
    @ValueSource(strings = {"nvidia.com/TU104GL_TESLA_T4", "example.com/gpu", "a/b", "intel.com/sgx.epc", "x-y.example/n-1_2.3"})
    void extendedResourceNamesAreTaken(String name) {
        assertThat(ExtendedResourceName.problem(name)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            gpu                         | has no domain prefix, so it would be a native resource (write <domain>/<name>)
            kubernetes.io/gpu           | the kubernetes.io domain is the native resources'
            node.kubernetes.io/gpu      | the kubernetes.io domain is the native resources'
            requests.example.com/gpu    | starts with the quota prefix 'requests.'
            example.com/a/b             | has more than one '/'
            Example.com/gpu             | prefix part must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character
            example.com/                | name part is empty
            nvidia.com/GA100_           | name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character
            """)
    void otherNamesAreRefusedWithTheReason(String name, String why) {
        assertThat(ExtendedResourceName.problem(name)).hasValue("resource name '" + name + "': " + why);
    }

    @Test
    void theNamePartMayBe63Characters() {
        assertThat(ExtendedResourceName.problem("example.com/" + "g".repeat(63))).isEmpty();
    }

    @Test
    void aLongerNamePartIsRefused() {
        String name = "example.com/" + "g".repeat(64);

        assertThat(ExtendedResourceName.problem(name)).hasValue("resource name '" + name + "': name part is 64 characters, at most 63 are allowed");
    }

    /** The quota prefix counts: requests.PREFIX must be a DNS subdomain of at most 253 characters. */
    @Test
    void thePrefixMayBe244CharactersAsTheQuotaPrefixMakesIt253() {
        assertThat(ExtendedResourceName.problem("a".repeat(244) + "/gpu")).isEmpty();
    }

    @Test
    void aLongerPrefixIsRefused() {
        String name = "a".repeat(245) + "/gpu";

        assertThat(ExtendedResourceName.problem(name))
                .hasValue("resource name '" + name + "': with 'requests.' in front its prefix is 254 characters, at most 253 are allowed");
    }
}
