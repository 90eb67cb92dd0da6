package io.vfiodp.deploy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vfiodp.checkout.Checkout;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A kubectl that renders kustomizations. The manifests must work with Debian's kubectl 1.20
 * (kustomize v2.0.3, what {@code .ci/run} installs, as {@code $KUBECTL}) and with current ones,
 * so the tests run every distinct kubectl they find: {@code $KUBECTL}, then {@code kubectl} on
 * {@code PATH}. Finding none is a failure, never a skip: the manifests would go untested.
 */
record Kubectl(Path binary, String version) {

    static final Path DEPLOY = Checkout.path("deploy");

    @Override
    public String toString() {
        return binary + " (" + version + ")";
    }

    /** Every distinct kubectl at hand; fails when there is none. */
    static List<Kubectl> all() {
        Map<Path, Kubectl> found = new LinkedHashMap<>();
        List<Path> candidates = new ArrayList<>();
        Optional.ofNullable(System.getenv("KUBECTL")).filter(s -> !s.isBlank()).map(Path::of).ifPresent(explicit -> {
            if (!Files.isExecutable(explicit)) {
                throw new AssertionError("KUBECTL=" + explicit + " is not an executable file");
            }
            candidates.add(explicit);
        });
        for (String dir : Optional.ofNullable(System.getenv("PATH")).orElse("").split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "kubectl");
            if (Files.isExecutable(p)) {
                candidates.add(p);
                break;
            }
        }
        for (Path p : candidates) {
            try {
                found.putIfAbsent(p.toRealPath(), new Kubectl(p, version(p)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (found.isEmpty()) {
            throw new AssertionError("no kubectl to render deploy/ with: run .ci/run (it installs Debian's kubernetes-client), "
                    + "or put kubectl on PATH, or set KUBECTL to one");
        }
        return List.copyOf(found.values());
    }

    private static String version(Path kubectl) {
        String out = run(List.of(kubectl.toString(), "version", "--client"));
        return out.lines().findFirst().orElse("?").trim();
    }

    /** {@code kubectl kustomize dir} (a directory under deploy/), as YAML. */
    String render(String kustomization) {
        return run(List.of(binary.toString(), "kustomize", DEPLOY.resolve(kustomization).toString()));
    }

    /** The rendered objects, typed by fabric8 as {@code kubectl apply} would send them. */
    List<HasMetadata> objects(String kustomization) {
        return load(render(kustomization));
    }

    /** {@code kubectl kustomize dir} of a kustomization anywhere (a test's own, composing deploy/'s), as typed objects. */
    List<HasMetadata> objectsAt(Path dir) {
        return load(run(List.of(binary.toString(), "kustomize", dir.toString())));
    }

    static List<HasMetadata> load(String yaml) {
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.empty()).build()) {
            return client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
        }
    }

    private static String run(List<String> command) {
        try {
            Path err = Files.createTempFile("kubectl-", ".err");
            try {
                Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError(String.join(" ", command) + " did not finish within 60 s");
                }
                if (p.exitValue() != 0) {
                    throw new AssertionError(String.join(" ", command) + " exited " + p.exitValue() + ": " + Files.readString(err));
                }
                return out;
            } finally {
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted running " + command, e);
        }
    }
}
