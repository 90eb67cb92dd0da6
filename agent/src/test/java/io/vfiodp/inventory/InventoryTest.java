package io.vfiodp.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.ResourceName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The inventory put together: what is read first, which pass is shown, what each format prints. */
class InventoryTest {

    /** The bundled copy, given explicitly so a host's own pci.ids cannot change the names. */
    private static final Optional<Path> PCI_IDS = Optional.of(Path.of(System.getProperty("basedir", "")).toAbsolutePath()
            .resolve("src/main/resources/pci.ids.gz"));
    private static final ResourceName T4 = ResourceName.of("nvidia.com/TU104GL_TESLA_T4");

    @TempDir Path dir;

    private static Inventory.Options options(Optional<Path> pciIds, Optional<Path> config, Inventory.Format format) {
        return new Inventory.Options(SysfsFixtures.sys("t4-numa"), SysfsFixtures.dev("t4-numa"), pciIds, config, format, DraRouting.NONE,
                Map.of());
    }

    private static Inventory.Outcome.Printed printed(Inventory.Outcome outcome) {
        assertThat(outcome).isInstanceOf(Inventory.Outcome.Printed.class);
        return (Inventory.Outcome.Printed) outcome;
    }

    @Test
    void theTableShowsThePassItHandsBack() {
        Inventory.Outcome.Printed table = printed(Inventory.run(options(PCI_IDS, Optional.empty(), Inventory.Format.TABLE)));

        assertThat(table.evaluation().result().desiredState().resources()).containsOnlyKeys(T4);
        assertThat(table.text()).contains("nvidia.com/TU104GL_TESLA_T4  PCI   4        3");
    }

    @Test
    void aSuggestionComesFromTheDefaultPolicyWhateverTheConfigurationPermits() throws IOException {
        Path nothing = Files.writeString(dir.resolve("nothing.yaml"), "permittedHostDevices: {}\n");

        Inventory.Outcome.Printed suggested = printed(Inventory.run(options(PCI_IDS, Optional.of(nothing), Inventory.Format.SUGGESTED_CONFIG)));
        Inventory.Outcome.Printed configured = printed(Inventory.run(options(PCI_IDS, Optional.of(nothing), Inventory.Format.TABLE)));

        assertThat(suggested.evaluation().result().desiredState().resources()).containsOnlyKeys(T4);
        assertThat(suggested.text()).contains("resourceName: \"nvidia.com/TU104GL_TESLA_T4\"");
        assertThat(configured.evaluation().result().desiredState().resources()).isEmpty();
    }

    @Test
    void aConfigurationThatCannotBeReadFailsEvenASuggestion() {
        Path absent = dir.resolve("absent.yaml");

        assertThat(Inventory.run(options(PCI_IDS, Optional.of(absent), Inventory.Format.SUGGESTED_CONFIG)))
                .isEqualTo(new Inventory.Outcome.Failed("config file " + absent + ": no such file"));
    }

    @Test
    void aPciIdsFileThatCannotBeReadIsTheAnswerBeforeTheConfiguration() {
        Path ids = dir.resolve("pci.ids");

        assertThat(Inventory.run(options(Optional.of(ids), Optional.of(dir.resolve("absent.yaml")), Inventory.Format.JSON)))
                .isEqualTo(new Inventory.Outcome.Failed("cannot read pci.ids database " + ids + ": no such file"));
    }

    @Test
    void aTableWithoutALayoutInItsConfigurationEndsWithTheScanProblems() {
        Inventory.Outcome.Printed table = printed(Inventory.run(options(PCI_IDS, Optional.empty(), Inventory.Format.TABLE)));

        assertThat(table.text()).endsWith("scan problems: none\n").doesNotContain("vGPU layout");
    }
}
