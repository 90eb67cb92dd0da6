package io.vfiodp.hooks;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.libvirt.HostdevXml;
import io.vfiodp.libvirt.KubeVirtRelease;
import io.vfiodp.libvirt.LauncherEnv;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which KubeVirt release the hook follows for a VMI, and what it warns about: the release its
 * {@code status.launcherContainerImageVersion} names (kubevirt/kubevirt
 * {@code pkg/virt-controller/watch/vmi/lifecycle.go} setLauncherContainerInfo, v1.9.0 79d34c1762),
 * unless the sidecar was given one; the newest release, with one warning, when the image names
 * none. The release shows where {@code hostdev.go}'s isRamFBSet differs (ac2ad7de6a): a PCI GPU
 * with {@code display.enabled: true} and no {@code ramFB}.
 */
class DomainDefinitionHookTest {

    static final String DOMAIN = "<domain type=\"kvm\"><name>team-a_vm1</name><devices></devices></domain>";
    static final LauncherEnv PCI = LauncherEnv.of(Map.of("PCI_RESOURCE_NVIDIA_COM_TU104GL_TESLA_T4", "0000:3b:00.0"));
    static final LauncherEnv MDEV = LauncherEnv.of(Map.of("MDEV_PCI_RESOURCE_NVIDIA_COM_GRID_T4-1Q", "4b20d080-1b54-4048-85b3-a6a62d165c01"));

    static String vmi(String image, String resource, String display) {
        return "{\"metadata\":{\"name\":\"vm1\",\"namespace\":\"team-a\"},"
                + "\"spec\":{\"domain\":{\"devices\":{\"gpus\":[{\"name\":\"gpu0\",\"deviceName\":\"" + resource + "\","
                + "\"virtualGPUOptions\":{\"display\":" + display + "}}]}}}"
                + (image == null ? "" : ",\"status\":{\"launcherContainerImageVersion\":\"" + image + "\"}") + "}";
    }

    static String pciDisplayVmi(String image) {
        return vmi(image, "nvidia.com/TU104GL_TESLA_T4", "{\"enabled\":true}");
    }

    static String define(DomainDefinitionHook hook, String vmi) {
        DefineOutcome outcome = hook.onDefineDomain(DOMAIN.getBytes(StandardCharsets.UTF_8), vmi.getBytes(StandardCharsets.UTF_8));
        assertThat(outcome).isInstanceOf(DefineOutcome.Changed.class);
        return new String(((DefineOutcome.Changed) outcome).domainXml(), StandardCharsets.UTF_8);
    }

    static DomainDefinitionHook hook(LauncherEnv env, Optional<KubeVirtRelease> release) {
        return new DomainDefinitionHook(env, false, release, new HostdevXml());
    }

    @Test
    void aVmiRunByVirtLauncher19GetsNoRamfbBesideThePciDisplay() {
        String domain = define(hook(PCI, Optional.empty()), pciDisplayVmi("quay.io/kubevirt/virt-launcher:v1.9.0"));
        assertThat(domain).contains("managed=\"no\" display=\"on\">").doesNotContain("ramfb");
    }

    @Test
    void aVmiRunByVirtLauncher110GetsRamfbBesideThePciDisplay() {
        String domain = define(hook(PCI, Optional.empty()), pciDisplayVmi("quay.io/kubevirt/virt-launcher:v1.10.0"));
        assertThat(domain).contains("managed=\"no\" display=\"on\" ramfb=\"on\">");
    }

    @Test
    void theSidecarsReleaseWinsOverTheVmis() {
        String domain = define(hook(PCI, Optional.of(KubeVirtRelease.V1_10)), pciDisplayVmi("quay.io/kubevirt/virt-launcher:v1.9.0"));
        assertThat(domain).contains("managed=\"no\" display=\"on\" ramfb=\"on\">");
    }

    @Test
    void anImageNamedByDigestFollowsTheNewestReleaseWithOneWarningPerVmi() {
        DomainDefinitionHook hook = hook(PCI, Optional.empty());
        String image = "quay.io/kubevirt/virt-launcher@sha256:0d4f36b2a1e1cc9a1c1f0b5b3e5f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5";
        String[] domain = new String[1];
        String log = capturingStderr(() -> {
            domain[0] = define(hook, pciDisplayVmi(image));
            define(hook, pciDisplayVmi(image));
        });
        assertThat(domain[0]).contains("managed=\"no\" display=\"on\">").doesNotContain("ramfb");
        assertThat(log.lines().filter(l -> l.contains("WARN"))).singleElement().asString().endsWith(
                " WARN OnDefineDomain: VMI team-a/vm1:"
                        + " status.launcherContainerImageVersion '" + image + "' names the image by digest alone, which names no KubeVirt"
                        + " version; following KubeVirt 1.9 (v1.9.x), the newest release, where releases differ (hook-sidecar"
                        + " --kubevirt-version chooses one)");
    }

    @Test
    void anMdevWhoseRamFbIsPresentWithEnabledUnsetIsWrittenWithRamfbAndWarnedAboutOncePerVmi() {
        DomainDefinitionHook hook = hook(MDEV, Optional.of(KubeVirtRelease.V1_9));
        String vmi = vmi(null, "nvidia.com/GRID_T4-1Q", "{\"ramFB\":{}}");
        String[] domain = new String[1];
        String log = capturingStderr(() -> {
            domain[0] = define(hook, vmi);
            define(hook, vmi);
        });
        assertThat(domain[0]).contains("type=\"mdev\" model=\"vfio-pci\" display=\"on\" ramfb=\"on\">");
        assertThat(log.lines().filter(l -> l.contains("WARN"))).singleElement().asString()
                .contains("OnDefineDomain: VMI team-a/vm1: spec.domain.devices.gpus[0].virtualGPUOptions.display.ramFB is {} (enabled unset)"
                        + " on an mdev vGPU; virt-launcher (v1.9.0 and main) would crash on it");
    }

    private static String capturingStderr(Runnable r) {
        PrintStream original = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(original);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }
}
