package io.vfiodp.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.scan.OpenWatch;
import io.vfiodp.libvirt.HostdevXml;
import io.vfiodp.libvirt.LauncherEnv;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * OnDefineDomain on hostile domain XML: entities of every kind (internal, nested "billion
 * laughs", external to a file, parameter entities, an external DTD), attributes of megabytes,
 * nesting thousands deep, an XInclude. A document with a DTD, a huge attribute or deep nesting
 * is refused; nothing is ever expanded or fetched: the canary files are never opened, their
 * content and the internal entities' text appear in no answer, and the work allocates memory
 * in proportion to the input, not to an expansion.
 */
class HostileDomainXmlProperties {

    private static final Duration HANG_GUARD = Duration.ofSeconds(60);
    private static final String INTERNAL = "CANARY-INTERNAL-ENTITY";
    private static final String FILE_CANARY = "CANARY-FILE-CONTENT";
    private static final String VMI = """
            {"apiVersion":"kubevirt.io/v1","kind":"VirtualMachineInstance","metadata":{"name":"vmi-t4","namespace":"ns"},
             "spec":{"domain":{"devices":{"gpus":[{"name":"gpu0","deviceName":"nvidia.com/TU104GL_TESLA_T4"}]}}}}
            """;

    private final DomainDefinitionHook hook = new DomainDefinitionHook(
            LauncherEnv.of(Map.of("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:3b:00.0")), false, Optional.empty(), new HostdevXml());
    private Path canaries;
    private String domain;

    enum Hostility {
        INTERNAL_ENTITY(true), BILLION_LAUGHS(true), EXTERNAL_ENTITY(true), PARAMETER_ENTITY(true), EXTERNAL_DTD(true),
        HUGE_ATTRIBUTE(true), DEEP_NESTING(true), XINCLUDE(false);

        final boolean refused;

        Hostility(boolean refused) {
            this.refused = refused;
        }
    }

    /** What was done to the domain: {@code size} scales the huge attribute (MiB) and the nesting (thousands). */
    record Attack(List<Hostility> hostilities, int size) {}

    @BeforeProperty
    void writeCanaries() throws IOException {
        canaries = Files.createTempDirectory("xml-canaries");
        Files.writeString(canaries.resolve("canary.txt"), FILE_CANARY);
        Files.writeString(canaries.resolve("canary.dtd"), "<!ENTITY leak \"" + FILE_CANARY + "\">");
        Files.writeString(canaries.resolve("param.ent"), "<!ENTITY leak \"" + FILE_CANARY + "\">");
        try (InputStream in = getClass().getResourceAsStream("/libvirt/kubevirt-gpu-domain.xml")) {
            domain = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @AfterProperty
    void deleteCanaries() throws IOException {
        Trees.deleteRecursively(canaries);
    }

    @Property(tries = 100)
    void hostileDomainIsRefusedWithoutExpandingOrFetchingAnything(@ForAll("attacks") Attack attack) throws IOException {
        byte[] xml = hostile(attack).getBytes(StandardCharsets.UTF_8);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

        DefineOutcome outcome;
        long allocated;
        List<String> opened;
        try (OpenWatch watch = OpenWatch.of(List.of(canaries), Set.of())) {
            record Measured(DefineOutcome outcome, long allocated) {}
            Measured m = assertTimeoutPreemptively(HANG_GUARD, () -> {
                long before = threads.getCurrentThreadAllocatedBytes();
                DefineOutcome o = hook.onDefineDomain(xml, VMI.getBytes(StandardCharsets.UTF_8));
                return new Measured(o, threads.getCurrentThreadAllocatedBytes() - before);
            });
            outcome = m.outcome();
            allocated = m.allocated();
            opened = watch.drain();
        }

        assertThat(opened).as("canary files opened").isEmpty();
        String answer = switch (outcome) {
            case DefineOutcome.Changed c -> new String(c.domainXml(), StandardCharsets.UTF_8) + c.added() + c.updated();
            case DefineOutcome.Unchanged u -> u.reason();
            case DefineOutcome.Failed f -> f.message();
        };
        assertThat(answer).doesNotContain(INTERNAL).doesNotContain(FILE_CANARY).doesNotContain("lol9lol9");
        if (attack.hostilities().stream().anyMatch(h -> h.refused)) {
            assertThat(outcome).isInstanceOf(DefineOutcome.Failed.class);
            assertThat(answer.length()).as("length of the refusal").isLessThan(2000);
        }
        assertThat(allocated).as("bytes allocated for a %d-byte document", xml.length).isLessThan(40L * xml.length + (64L << 20));
    }

    /** The domain with each hostility put where it does harm. */
    private String hostile(Attack attack) {
        String doctype = "";
        String declarations = "";
        String reference = "";
        String text = domain;
        for (Hostility h : attack.hostilities()) {
            switch (h) {
                case INTERNAL_ENTITY -> {
                    declarations += "<!ENTITY internal \"" + INTERNAL + "\">";
                    reference += "&internal;";
                }
                case BILLION_LAUGHS -> {
                    StringBuilder d = new StringBuilder("<!ENTITY lol0 \"lol9lol9\">");
                    for (int i = 1; i < 10; i++) d.append("<!ENTITY lol").append(i).append(" \"").append(("&lol" + (i - 1) + ";").repeat(10)).append("\">");
                    declarations += d;
                    reference += "&lol9;";
                }
                case EXTERNAL_ENTITY -> {
                    declarations += "<!ENTITY external SYSTEM \"" + canaries.resolve("canary.txt").toUri() + "\">";
                    reference += "&external;";
                }
                case PARAMETER_ENTITY -> declarations += "<!ENTITY % param SYSTEM \"" + canaries.resolve("param.ent").toUri() + "\">%param;";
                case EXTERNAL_DTD -> doctype = " SYSTEM \"" + canaries.resolve("canary.dtd").toUri() + "\"";
                case HUGE_ATTRIBUTE -> text = text.replaceFirst("<name>", "<name huge=\"" + "A".repeat(attack.size() << 20) + "\">");
                case DEEP_NESTING -> text = text.replaceFirst("<devices>",
                        "<devices>" + "<x>".repeat(attack.size() * 1000) + "</x>".repeat(attack.size() * 1000));
                case XINCLUDE -> text = text.replaceFirst("<devices>",
                        "<devices><xi:include xmlns:xi=\"http://www.w3.org/2001/XInclude\" href=\"" + canaries.resolve("canary.txt").toUri() + "\" parse=\"text\"/>");
            }
        }
        if (!reference.isEmpty()) {
            text = text.replaceFirst("<name>", "<name>" + reference).replaceFirst("<alias name=\"ua-default\">", "<alias name=\"" + reference + "\">");
        }
        if (!declarations.isEmpty() || !doctype.isEmpty()) {
            text = "<!DOCTYPE domain" + doctype + (declarations.isEmpty() ? "" : " [" + declarations + "]") + ">\n" + text;
        }
        return text;
    }

    @Provide
    Arbitrary<Attack> attacks() {
        return Combinators.combine(Arbitraries.of(Hostility.values()).set().ofMinSize(1).ofMaxSize(3).map(s -> List.copyOf(new java.util.TreeSet<>(s))),
                Arbitraries.integers().between(1, 8)).as(Attack::new);
    }
}
