package io.vfiodp.serve;

import static io.vfiodp.serve.SwitchNode.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vfiodp.plugin.KubeletStarts;
import io.vfiodp.policy.DraRouting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * serve on a node whose state files were damaged while it was stopped, or removed by a kubelet
 * restart: the switch's record and the DRA checkpoint, when they cannot be trusted, count as lost,
 * and lost means that any device may be held until the kubelet's PodResources shows otherwise. No
 * device a pod or a claim holds is offered by the other side, or prepared for a second claim.
 */
class StateFilesOnNodeTest {

    private static final String A = "0000:1a:00.0";
    private static final String B = "0000:1b:00.0";
    private static final String B1 = "0000:b1:00.0";
    private static final Set<String> HEALTHY = Set.of(A, B, B1);

    /** A version-1 checkpoint of the wrong shape: valid JSON, no claim list. */
    private static final String WRONG_SHAPE = "{\"version\": 1, \"driver\": \"" + SwitchNode.DRIVER + "\", \"claims\": {}}";

    @TempDir Path root;

    /** Overwrites the switch's record, wherever this version keeps it under the device-plugin dir. */
    private static void overwriteRecord(SwitchNode node, String text) throws IOException {
        List<Path> records;
        try (Stream<Path> files = Files.walk(node.plugins)) {
            records = files.filter(p -> p.getFileName().toString().contains("offered-devices") && Files.isRegularFile(p)).toList();
        }
        assertThat(records).as("the record").hasSize(1);
        Files.writeString(records.getFirst(), text);
    }

    private static Path checkpoint(SwitchNode node) {
        return node.root.resolve("plugins").resolve(SwitchNode.DRIVER).resolve("checkpoint.json");
    }

    /** Pod vm1 runs with a claim on B1 through DRA; serve stops, its checkpoint is overwritten with {@code text}, and it starts with {@code next}. */
    private static void claimThenRestartWithTheCheckpoint(SwitchNode node, String text, DraRouting next) throws IOException {
        node.awaitSliceOffers(HEALTHY);
        assertThat(node.runWithClaim("vm1", B1)).isTrue();
        node.stop();
        Files.writeString(checkpoint(node), text);
        serveAgain(node, next);
    }

    /** Starts serve again after the test changed files while it was stopped. */
    private static void serveAgain(SwitchNode node, DraRouting routing) {
        node.draKubelet.restart();
        node.serve(routing);
    }

    @Test
    void aRecordOverwrittenWithGarbageKeepsAPodsDeviceOutOfTheSlice() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.NONE)) {
            node.awaitAllocatable(HEALTHY);
            assertThat(node.admit("vm1")).contains(A);
            node.stop();
            overwriteRecord(node, "garbage\nmore garbage\n\u0000\u0007 and more\n");

            serveAgain(node, DraRouting.ALL);

            node.awaitSliceOffers(Set.of(B, B1));
            node.pass();
            await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> !node.sliceOffers().contains(A));
            assertThat(node.end("vm1")).isEmpty();
            node.pass();
            node.awaitSliceOffers(HEALTHY);
        }
    }

    @Test
    void aCheckpointOfTheWrongShapePreparesNoSecondClaimOnAHeldDevice() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.ALL)) {
            claimThenRestartWithTheCheckpoint(node, WRONG_SHAPE, DraRouting.ALL);

            // the scheduler's view is the API's; a claim allocated the held device anyway is not prepared
            assertThat(node.runWithClaim("vm2", B1)).isFalse();
            assertThat(node.runWithClaim("vm3", B)).isTrue();
            assertThat(node.end("vm1")).isEmpty();
        }
    }

    @Test
    void aCheckpointOfTheWrongShapeUnderDraResourcesNoneKeepsTheClaimsDeviceOutOfTheDevicePlugins() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.ALL)) {
            claimThenRestartWithTheCheckpoint(node, WRONG_SHAPE, DraRouting.NONE);

            node.awaitAllocatable(Set.of(A, B));
            node.pass();
            await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> !node.allocatable().contains(B1));
            assertThat(node.end("vm1")).isEmpty();
            node.pass();
            node.awaitAllocatable(HEALTHY);
        }
    }

    @Test
    void aGarbageCheckpointUnderDraResourcesNoneTakesNoDevicePluginDown() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.ALL)) {
            claimThenRestartWithTheCheckpoint(node, "\u0000\u0001 not a checkpoint", DraRouting.NONE);

            node.awaitAllocatable(Set.of(A, B));
            assertThat(node.allocatable()).doesNotContain(B1);
        }
    }

    @Test
    void theRecordSurvivesAKubeletRestart() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.NONE)) {
            node.awaitAllocatable(HEALTHY);
            node.restart(DraRouting.ALL);
            // PodResources showed them free: the record names none
            node.awaitSliceOffers(HEALTHY);
            node.stop();
            Files.writeString(node.plugins.resolve("kubelet_internal_checkpoint"), "{}");
            KubeletStarts.upTo132(node.plugins);
            // with PodResources down, a lost record would keep every device out of the slices (unproven free): the holders'
            // own reads of PodResources make a count of its calls no measure of the switch's
            node.podResources.unavailable(true);

            serveAgain(node, DraRouting.ALL);

            node.awaitSliceOffers(HEALTHY);
        }
    }

    @Test
    void noPlainFileOfOursIsLeftInTheDevicePluginDirectory() throws Exception {
        try (SwitchNode node = new SwitchNode(root).serve(DraRouting.NONE)) {
            node.awaitAllocatable(HEALTHY);
            assertThat(node.admit("vm1")).contains(A);
            node.restart(DraRouting.ALL);
            assertThat(node.runWithClaim("vm2", B)).isTrue();
            node.restart(DraRouting.NONE);
            node.awaitAllocatable(Set.of(A, B1));

            List<String> plain = new ArrayList<>();
            try (Stream<Path> entries = Files.list(node.plugins)) {
                for (Path p : entries.toList()) {
                    BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    // sockets are "other"; a directory survives every kubelet's clean-up
                    if (!a.isOther() && !a.isDirectory()) plain.add(p.getFileName().toString());
                }
            }
            assertThat(plain).as("plain files in %s, which kubelets up to 1.32 remove when they start", node.plugins).isEmpty();
        }
    }
}
