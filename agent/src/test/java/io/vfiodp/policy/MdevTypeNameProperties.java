package io.vfiodp.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.HostSnapshot;
import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.MdevType;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.ScanProblem;
import io.vfiodp.host.fixtures.SysfsFixtures;
import io.vfiodp.host.fixtures.Trees;
import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.host.scan.SysfsScanner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * An mdev type's {@code name} file with any content, on the {@code t4-vgpu} node (type
 * {@code nvidia-230} of GPU {@code 0000:3b:00.0} has instances): the scan reads it as the
 * stripped text or leaves the type and its instances out naming the file, and the default
 * policy serves the instances under a name the kubelet accepts.
 */
class MdevTypeNameProperties {

    private static final PciAddress GPU = PciAddress.parse("0000:3b:00.0");
    private static final String TYPE = "nvidia-230";
    /** The type the other GPU's mdevs ({@code 0000:d9:00.0}) have. */
    private static final String OTHER_NAME_FILE = "devices/pci0000:d8/0000:d8:00.0/0000:d9:00.0/mdev_supported_types/nvidia-231/name";
    private static final String NAME_FILE = "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/mdev_supported_types/nvidia-230/name";

    private Path node;
    private PciIds pciIds;

    @BeforeProperty
    void copyNode() throws IOException {
        node = Files.createTempDirectory("mdev-type-name");
        Trees.copy(SysfsFixtures.committedRoot().resolve("t4-vgpu"), node);
        pciIds = PciIds.bundled();
    }

    @AfterProperty
    void deleteNode() throws IOException {
        Trees.deleteRecursively(node);
    }

    @Property(tries = 200)
    void anyTypeNameIsReadStrippedOrExplainedAndServedUnderAValidName(@ForAll("nameFiles") byte[] content) throws IOException {
        Files.writeString(node.resolve("sys").resolve(OTHER_NAME_FILE), "GRID T4-2Q\n");
        Files.write(node.resolve("sys").resolve(NAME_FILE), content);

        HostSnapshot snapshot = new SysfsScanner(node.resolve("sys"), node.resolve("dev")).scan();

        Optional<String> readable = text(content).map(String::strip).filter(s -> !s.isEmpty());
        MdevParent parent = snapshot.mdevParents().get(GPU);
        if (readable.isPresent()) {
            assertThat(parent.types()).filteredOn(t -> t.id().equals(TYPE)).singleElement()
                    .extracting(MdevType::name).isEqualTo(readable);
            assertThat(snapshot.mdevs().values()).filteredOn(m -> m.typeId().equals(TYPE)).isNotEmpty()
                    .allSatisfy(m -> assertThat(m.typeName()).isEqualTo(readable.get()));
        } else {
            assertThat(parent.types()).noneMatch(t -> t.id().equals(TYPE));
            assertThat(snapshot.mdevs().values()).noneMatch(m -> m.typeId().equals(TYPE));
            assertThat(snapshot.problems()).extracting(ScanProblem::path)
                    .contains("bus/pci/devices/0000:3b:00.0/mdev_supported_types/nvidia-230/name");
        }

        PolicyResult result = PolicyEngine.evaluate(snapshot, Optional.empty(), pciIds);
        for (MdevInstance m : snapshot.mdevs().values()) {
            assertThat(PolicyResults.exposed(result, m.uuid())).as("mdev %s of type '%s'", m.uuid(), m.typeName()).isPresent();
        }
        assertThat(result.desiredState().resources().keySet())
                .allSatisfy(name -> assertThat(KubeletResourceNameRule.accepts(name.value())).as(name.value()).isTrue());
    }

    @Property(tries = 100)
    void twoTypesNamedAlikeAreServedUnderNamesWithTheirOwnVariables(@ForAll("lookalikes") String first, @ForAll("lookalikes") String second)
            throws IOException {
        Files.writeString(node.resolve("sys").resolve(NAME_FILE), first);
        Files.writeString(node.resolve("sys").resolve(OTHER_NAME_FILE), second);

        PolicyResult result = PolicyEngine.evaluate(new SysfsScanner(node.resolve("sys"), node.resolve("dev")).scan(),
                Optional.empty(), pciIds);

        assertThat(result.desiredState().resources().keySet()).extracting(name -> KubeVirtEnv.variableName(DeviceKind.MDEV, name))
                .doesNotHaveDuplicates();
    }

    private static Optional<String> text(byte[] content) {
        if (content.length > 4096) return Optional.empty();
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(content)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /** Type names that differ only in case, or in '.' against '_' or ' '. */
    @Provide
    Arbitrary<String> lookalikes() {
        return Arbitraries.of("GRID T4-1Q", "grid t4-1q", "GRID T4.1Q", "GRID T4_1Q", "GRID_T4-1Q", "Grid T4-1q");
    }

    @Provide
    Arbitrary<byte[]> nameFiles() {
        return Arbitraries.oneOf(
                Arbitraries.of("GRID T4-1Q\n", "GRID  T4-1Q", " GRID\tT4-1Q \n", "GRID T4-2Q\n", "", "\n", " \t\n", "ß", "GRID/T4.1Q",
                        "-", "__", "x".repeat(100), "GRID T4-1Q\u00a0\n").map(s -> s.getBytes(StandardCharsets.UTF_8)),
                Arbitraries.strings().ofMaxLength(40).map(s -> s.getBytes(StandardCharsets.UTF_8)),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(20),
                Arbitraries.integers().between(4090, 4100).map(n -> "G".repeat(n).getBytes(StandardCharsets.US_ASCII)));
    }
}
