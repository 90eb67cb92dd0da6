package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Names the kubelet refuses at Register although they look like extended resource names. Found
 * by {@link ResourceNameProperties} against {@link KubeletResourceNameRule}: each used to pass.
 */
class ResourceNameTest {

    @Test
    void prefixLongerThan244CharactersIsRefusedBecauseTheKubeletChecksItWithRequestsInFront() {
        String prefix = "a".repeat(242) + ".io";

        assertThat(ResourceName.problem(prefix + "/gpu")).contains("resource name '" + prefix + "/gpu': prefix '" + prefix
                + "' is 245 characters, the kubelet allows at most 244");
    }

    @Test
    void prefixStartingWithTheQuotaPrefixRequestsIsRefused() {
        assertThat(ResourceName.problem("requests.nvidia.com/gpu")).contains("resource name 'requests.nvidia.com/gpu':"
                + " a prefix starting with 'requests.' is refused by the kubelet (it is the resource quota prefix)");
    }

    @Test
    void prefixEndingInKubernetesIoWithoutADotIsRefusedAsReserved() {
        assertThat(ResourceName.problem("notkubernetes.io/gpu")).contains("resource name 'notkubernetes.io/gpu':"
                + " the kubernetes.io domain is reserved and not allowed for extended resources");
    }

    @Test
    void longestPrefixTheKubeletTakesIsAccepted() {
        assertThat(ResourceName.problem("a".repeat(241) + ".io/gpu")).isEmpty();
    }
}
