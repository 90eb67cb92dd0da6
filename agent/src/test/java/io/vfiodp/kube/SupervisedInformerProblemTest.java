package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.core.exc.StreamReadException;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** How a failed list or watch is named in the one log line each new problem gets. */
class SupervisedInformerProblemTest {

    private static String describe(Throwable t) {
        return SupervisedInformer.describe(t, "list and watch on kubevirts.kubevirt.io", "is KubeVirt installed?");
    }

    @Test
    void refusedConnectionIsAnUnreachableApiServer() {
        assertThat(describe(new KubernetesClientException("list failed", new CompletionException(new ConnectException("Connection refused")))))
                .isEqualTo("API server unreachable (ConnectException: Connection refused)");
    }

    @Test
    void answerThatIsNotJsonIsAnUnreadableAnswerNotAnUnreachableServer() {
        assertThat(describe(new KubernetesClientException("list failed",
                new StreamReadException("Unexpected close marker ']': expected '}'"))))
                .isEqualTo("unreadable answer from the API server (StreamReadException: Unexpected close marker ']': expected '}')");
    }

    @Test
    void binaryGarbageIsQuotedAsOneShortPrintableLine() {
        String garbage = "Invalid status line: \"\u00bb4w\u00a3Z\u00c9\n\r\u0000" + "x".repeat(400) + "\"";

        String line = describe(new KubernetesClientException("list failed", new ProtocolException(garbage)));

        String quoted = "Invalid status line: \"?4w?Z????" + "x".repeat(160 - 31);
        assertThat(line).isEqualTo("unreadable answer from the API server (ProtocolException: " + quoted + "...)");
    }

    @Test
    void httpStatusesAreNamedWithWhatToDo() {
        assertThat(describe(new KubernetesClientException("forbidden", 403, null)))
                .isEqualTo("forbidden (HTTP 403): grant list and watch on kubevirts.kubevirt.io");
        assertThat(describe(new KubernetesClientException("not found", 404, null))).isEqualTo("not found (HTTP 404): is KubeVirt installed?");
    }
}
