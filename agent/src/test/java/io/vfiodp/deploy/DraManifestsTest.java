package io.vfiodp.deploy;

import static io.vfiodp.deploy.BaseManifestsTest.mounts;
import static io.vfiodp.deploy.BaseManifestsTest.option;
import static io.vfiodp.deploy.BaseManifestsTest.serveOptions;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.vfiodp.checkout.Checkout;
import io.vfiodp.dra.DraSettings;
import io.vfiodp.dra.classes.ExtendedResourceClasses;
import io.vfiodp.policy.DraKind;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.ResourceName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import picocli.CommandLine.Model.CommandSpec;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * deploy/dra is the base plus the DRA driver's DeviceClasses, RBAC and directories, each directory
 * at its host path and where the driver looks by default, and serve's options that turn it on.
 */
class DraManifestsTest {

    static Stream<Manifests> dra() {
        return Manifests.of("dra").stream();
    }

    private static Manifests baseBySameKubectl(Manifests m) {
        return Manifests.of("base").stream().filter(b -> b.kubectl().equals(m.kubectl())).findFirst().orElseThrow();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dra")
    void addsTheDeviceClassesAndTheDraRbacToTheBase(Manifests m) {
        List<String> expected = new ArrayList<>(baseBySameKubectl(m).kindsAndNames());
        expected.addAll(List.of("DeviceClass -/passthrough.vfio-device-plugin.io", "DeviceClass -/mdev.vfio-device-plugin.io",
                "DeviceClass -/sriov-vgpu.vfio-device-plugin.io", "DeviceClass -/grid-t4-1q.f64.nvidia.com.vfio-device-plugin.io",
                "DeviceClass -/grid-t4-2q.f64.nvidia.com.vfio-device-plugin.io",
                "DeviceClass -/tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io", "ClusterRole -/vfio-device-plugin-dra",
                "ClusterRoleBinding -/vfio-device-plugin-dra"));
        assertThat(m.kindsAndNames()).containsExactlyInAnyOrderElementsOf(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dra")
    void eachKindTheDriverPublishesHasAClassSelectingExactlyIt(Manifests m) {
        String driver = DraSettings.DEFAULT_DRIVER;
        for (DraKind kind : DraKind.values()) {
            DeviceClass c = m.one(DeviceClass.class, kind.label() + "." + driver);
            assertThat(c.getSpec().getSelectors()).singleElement().satisfies(s -> assertThat(s.getCel().getExpression())
                    .isEqualTo("device.driver == '" + driver + "' && device.attributes['" + driver + "'].kind == '" + kind.label() + "'"));
        }
        assertThat(Arrays.stream(DraKind.values()).map(DraKind::label)).containsExactly("passthrough", "mdev", "sriov-vgpu");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dra")
    void eachResourceNameOfTheExamplesHasTheClassInventoryPrintsForIt(Manifests m) throws IOException {
        List<ResourceName> names = new ArrayList<>();
        Matcher r = Pattern.compile("resourceName: (\\S+)").matcher(Files.readString(Checkout.path("deploy/examples/kubevirt-permitted-host-devices.yaml")));
        while (r.find()) names.add(ResourceName.of(r.group(1)));
        String printed = ExtendedResourceClasses.yaml(DraSettings.DEFAULT_DRIVER, ExtendedResourceClasses.of(DraSettings.DEFAULT_DRIVER, names), "");
        String shipped = Files.readString(Checkout.path("deploy/dra/deviceclasses-extended-resources.yaml")).replaceAll("(?m)\\A(#.*\\n)+", "");

        assertThat(names).hasSize(3);
        assertThat(shipped).isEqualTo(printed);
        for (ResourceName name : names) {
            DeviceClass c = m.one(DeviceClass.class, ExtendedResourceClasses.className(DraSettings.DEFAULT_DRIVER, name));
            assertThat(c.getSpec().getExtendedResourceName()).isEqualTo(name.value());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dra")
    void serveGetsTheBasesOptionsAndRunsTheDraDriverForEveryResourceOnTheMountedDirectories(Manifests m) {
        List<String> expected = new ArrayList<>(baseBySameKubectl(m).container().getArgs());
        expected.addAll(List.of("--dra-resources=all", "--dra-driver-name=vfio-device-plugin.io",
                "--dra-registry-dir=/var/lib/kubelet/plugins_registry", "--dra-plugin-dir=/var/lib/kubelet/plugins/vfio-device-plugin.io",
                "--cdi-dir=/var/run/cdi"));
        assertThat(m.container().getArgs()).isEqualTo(expected);

        CommandSpec serve = serveOptions(m.container());
        assertThat(option(serve, "--dra-resources").toString()).isEqualTo(DraRouting.ALL.toString());
        assertThat(option(serve, "--dra-driver-name").toString()).isEqualTo(DraSettings.DEFAULT_DRIVER);
        for (String dir : List.of("--dra-registry-dir", "--dra-plugin-dir", "--cdi-dir")) {
            Path path = option(serve, dir);
            assertThat(mounts(m)).as(dir).contains(path + " <- hostPath " + path + (dir.equals("--dra-registry-dir") ? " Directory" : " DirectoryOrCreate")
                    + " (read-write)");
        }
        // the base's NODE_NAME from the downward API names the driver's pool
        assertThat(m.container().getEnv()).filteredOn(e -> e.getName().equals("NODE_NAME")).singleElement()
                .satisfies(e -> assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dra")
    void mountsTheKubeletsDraDirectoriesAtTheirHostPathsWhereTheDriverLooks(Manifests m) {
        DraSettings defaults = DraSettings.defaults(DraSettings.DEFAULT_DRIVER, "node");
        List<String> expected = new ArrayList<>(mounts(baseBySameKubectl(m)));
        expected.addAll(List.of(
                defaults.registryDir() + " <- hostPath " + defaults.registryDir() + " Directory (read-write)",
                defaults.pluginDir() + " <- hostPath " + defaults.pluginDir() + " DirectoryOrCreate (read-write)",
                defaults.cdiDir() + " <- hostPath " + defaults.cdiDir() + " DirectoryOrCreate (read-write)"));
        assertThat(mounts(m)).containsExactlyInAnyOrderElementsOf(expected);
        // serve's default --pod-resources-socket is in the base's read-only mount: which devices pods hold, before one goes to DRA
        assertThat(mounts(m)).contains("/var/lib/kubelet/pod-resources <- hostPath /var/lib/kubelet/pod-resources Directory (read-only)");
        assertThat(((Path) option(serveOptions(m.container()), "--pod-resources-socket")).getParent())
                .isEqualTo(Path.of("/var/lib/kubelet/pod-resources"));
    }
}
