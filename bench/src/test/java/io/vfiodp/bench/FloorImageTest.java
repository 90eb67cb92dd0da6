package io.vfiodp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FloorImageTest {

    @Test
    void theFloorsJarHoldsItsClassesAndOfOurJarGrpcProtobufAndTheDevicePluginStubsOnly(@TempDir Path tmp) throws Exception {
        Path agent = tmp.resolve("agent.jar");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(agent))) {
            for (String name : List.of("io/grpc/Server.class", "com/google/protobuf/Any.class", "io/perfmark/PerfMark.class",
                    "io/vfiodp/proto/deviceplugin/v1beta1/Empty.class", "io/vfiodp/proto/dra/v1/Claim.class", "io/vfiodp/plugin/Allocation.class",
                    "io/fabric8/kubernetes/Client.class", "picocli/CommandLine.class", "META-INF/services/io.grpc.ServerProvider",
                    "META-INF/services/org.slf4j.spi.SLF4JServiceProvider")) {
                jar.putNextEntry(new JarEntry(name));
                jar.write(1);
                jar.closeEntry();
            }
        }
        Path floor = tmp.resolve("floor.jar");

        FloorImage.writeJar(agent, floor);

        try (JarFile jar = new JarFile(floor.toFile())) {
            assertThat(jar.stream().map(JarEntry::getName).filter(n -> !n.startsWith("io/vfiodp/bench/floor/"))).containsExactly(
                    "io/grpc/Server.class", "com/google/protobuf/Any.class", "io/perfmark/PerfMark.class",
                    "io/vfiodp/proto/deviceplugin/v1beta1/Empty.class", "META-INF/services/io.grpc.ServerProvider");
            assertThat(jar.getEntry("io/vfiodp/bench/floor/FloorPlugin.class")).isNotNull();
        }
    }

    @Test
    void theRuntimesFeatureReleaseComesFromItsReleaseFile(@TempDir Path image) throws Exception {
        Files.createDirectories(image.resolve("runtime"));
        Files.writeString(image.resolve("runtime/release"), "IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_VERSION=\"25.0.3\"\nMODULES=\"java.base\"\n");

        assertThat(FloorImage.javaFeature(image)).isEqualTo(25);
    }
}
