package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Resource names: {@link ResourceName} accepts exactly what the kubelet accepts
 * ({@link KubeletResourceNameRule}), and every name part {@link DefaultNames} generates and
 * repairs is one the kubelet accepts.
 */
class ResourceNameProperties {

    @Property(tries = 2000)
    void resourceNameAcceptsExactlyWhatTheKubeletAccepts(@ForAll("candidateNames") String name) {
        Optional<String> problem = ResourceName.problem(name);
        Throwable refused = catchThrowable(() -> ResourceName.of(name));

        if (KubeletResourceNameRule.accepts(name)) {
            assertThat(problem).isEmpty();
            assertThat(refused).isNull();
        } else {
            assertThat(problem).isPresent();
            assertThat(refused).isExactlyInstanceOf(IllegalArgumentException.class).hasMessage(problem.get());
        }
    }

    @Property(tries = 500)
    void everyRepairedNamePartIsOneTheKubeletAccepts(@ForAll("rawNameParts") String raw) {
        Optional<DefaultNames.Repaired> repaired = DefaultNames.repair(raw);

        if (repaired.isEmpty()) {
            assertThat(raw.chars()).noneMatch(c -> c < 128 && Character.isLetterOrDigit(c));
        } else {
            String part = repaired.get().namePart();
            assertThat(KubeletResourceNameRule.accepts(DefaultNames.DOMAIN + "/" + part)).as(part).isTrue();
            assertThat(repaired.get().change().isPresent()).isEqualTo(!part.equals(raw));
            assertThat(DefaultNames.repair(part)).as("repairing twice").contains(new DefaultNames.Repaired(part, Optional.empty()));
        }
    }

    @Property(tries = 300)
    void modelAndTypeNamesRepairToAcceptedNamesOrToNothing(@ForAll("modelNames") String model) {
        for (String raw : new String[] {DefaultNames.fromModelName(model), DefaultNames.fromTypeName(model)}) {
            DefaultNames.repair(raw).ifPresent(r ->
                    assertThat(KubeletResourceNameRule.accepts(DefaultNames.DOMAIN + "/" + r.namePart())).as(r.namePart()).isTrue());
        }
    }

    /** Names near the rule's edges: reserved and quota prefixes, lengths around the limits, stray characters. */
    @Provide
    Arbitrary<String> candidateNames() {
        Arbitrary<String> label = Arbitraries.strings().withChars("abz09-").ofMinLength(1).ofMaxLength(8);
        Arbitrary<String> domain = Arbitraries.oneOf(
                Arbitraries.of("nvidia.com", "example.org", "kubernetes.io", "x.kubernetes.io", "xkubernetes.io",
                        "kubernetes.io.evil.com", "requests.nvidia.com", "requestsx.com", "a", "A.com", "-a.com", "a-.com",
                        "a..com", ".a.com", "", "a_b.com"),
                label.list().ofMinSize(1).ofMaxSize(4).map(l -> String.join(".", l)),
                Arbitraries.integers().between(240, 256).map(n -> "a".repeat(n - 4) + ".com"));
        Arbitrary<String> part = Arbitraries.oneOf(
                Arbitraries.strings().withChars("aZ9_.-/ ä").ofMinLength(0).ofMaxLength(10),
                Arbitraries.integers().between(60, 66).map("G"::repeat),
                Arbitraries.of("TU104GL_TESLA_T4", "GRID_T4-1Q", "gpu", "a", "_a", "a_", "a.b", "-"));
        return Arbitraries.frequencyOf(
                Tuple.of(8, Combinators.combine(domain, part).as((d, p) -> d + "/" + p)),
                Tuple.of(1, Arbitraries.strings().ofMaxLength(20)));
    }

    @Provide
    Arbitrary<String> rawNameParts() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withChars("aZ9_.-/ :[]ß\t").ofMaxLength(80),
                Arbitraries.strings().ofMaxLength(80),
                Arbitraries.integers().between(50, 140).map(n -> "GA100_" + "X".repeat(n)));
    }

    @Provide
    Arbitrary<String> modelNames() {
        return Arbitraries.oneOf(
                Arbitraries.of("TU106 [GeForce RTX 2060 Rev. A]", "GRID T4-1Q", "NVIDIA L40S-4Q", "GH100 [H100 SXM5 80GB]",
                        "  ", "[ ]", "ß", "GA102GL [A10] / 5.0"),
                Arbitraries.strings().withChars("aZ9 ._-/[]()+&,'ß\t").ofMaxLength(100),
                Arbitraries.strings().ofMaxLength(100));
    }
}
