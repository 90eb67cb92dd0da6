package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeApiDetectionTest {

    @TempDir
    Path home;

    @Test
    void insideAPodTheServiceEnvNamesTheApi() {
        assertThat(KubeApiDetection.source(Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1"), home))
                .contains("in-cluster service 10.96.0.1");
    }

    @Test
    void anExplicitMasterUrlNamesTheApi() {
        assertThat(KubeApiDetection.source(Map.of("KUBERNETES_MASTER", "https://api:6443"), home)).contains("KUBERNETES_MASTER https://api:6443");
    }

    @Test
    void anExistingKubeconfigFromTheEnvIsUsed() throws IOException {
        Path missing = home.resolve("missing");
        Path config = Files.writeString(home.resolve("cfg"), "apiVersion: v1\n");

        assertThat(KubeApiDetection.source(Map.of("KUBECONFIG", missing + ":" + config), home)).contains("kubeconfig " + config);
    }

    @Test
    void theDefaultKubeconfigInHomeIsUsed() throws IOException {
        Files.createDirectories(home.resolve(".kube"));
        Files.writeString(home.resolve(".kube/config"), "apiVersion: v1\n");

        assertThat(KubeApiDetection.source(Map.of(), home)).contains("kubeconfig " + home.resolve(".kube/config"));
    }

    @Test
    void withoutServiceEnvOrKubeconfigThereIsNoApi() {
        assertThat(KubeApiDetection.source(Map.of("KUBECONFIG", home.resolve("nope").toString()), home)).isEqualTo(Optional.empty());
    }

    @Test
    void inAPodWhoseServiceHostIsEmptyTheAbsenceSaysSoAndNamesTheToken() throws IOException {
        Path serviceAccount = Files.createDirectories(home.resolve("serviceaccount"));
        Files.writeString(serviceAccount.resolve("token"), "eyJhbGciOi");

        assertThat(KubeApiDetection.absence(Map.of("KUBERNETES_SERVICE_HOST", ""), home, serviceAccount)).isEqualTo(
                "KUBERNETES_SERVICE_HOST is empty although a service-account token is mounted (" + serviceAccount.resolve("token")
                        + "): a pod whose environment lacks the API server's address, KUBECONFIG not set, no " + home.resolve(".kube/config"));
    }

    @Test
    void outsideAPodTheAbsenceSaysWhatWasLookedFor() {
        Path noServiceAccount = home.resolve("serviceaccount");

        assertThat(KubeApiDetection.absence(Map.of("KUBECONFIG", home.resolve("nope").toString()), home, noServiceAccount)).isEqualTo(
                "not in a pod (KUBERNETES_SERVICE_HOST not set, no service-account token at " + noServiceAccount.resolve("token")
                        + "), no file KUBECONFIG names exists (" + home.resolve("nope") + "), no " + home.resolve(".kube/config"));
    }
}
