package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.libvirt.KubeVirtOracle.Display;
import io.vfiodp.libvirt.KubeVirtOracle.FeatureState;
import io.vfiodp.libvirt.KubeVirtOracle.Gpu;
import io.vfiodp.libvirt.KubeVirtOracle.Options;
import io.vfiodp.libvirt.KubeVirtOracle.Shown;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Generated VMIs (up to four {@code gpus[]} entries, each a PCI device or an mdev, with every way
 * of writing {@code virtualGPUOptions}) planned for each release agree with KubeVirt's own code of
 * that release ({@link KubeVirtOracle}): the helper refuses exactly the VMIs KubeVirt's admission
 * refuses once virt-api has defaulted them, and otherwise gives every device the display and
 * ramfb virt-launcher gives it; and it warns exactly where virt-launcher would panic on the VMI as
 * written, had it not been defaulted.
 */
class KubeVirtReleaseProperties {

    private final HostdevPlanner planner = new HostdevPlanner();

    @Property(tries = 600)
    void eachReleaseRefusesAndDisplaysAsItsOwnCodeDoes(@ForAll("gpus") List<Gpu> written, @ForAll KubeVirtRelease release) {
        List<Gpu> admitted = KubeVirtOracle.defaulted(written);
        PlanOutcome plan = planner.plan(env(written), Optional.of(VmiDevices.parse(vmi(written))), false, release);

        if (KubeVirtOracle.countConfiguredMdevRamFbs(release, admitted) > 1) {
            assertThat(plan).isInstanceOf(PlanOutcome.Failed.class);
            assertThat(((PlanOutcome.Failed) plan).problems()).singleElement().asString().contains("each enable a display with ramfb");
            return;
        }
        assertThat(plan).isInstanceOf(PlanOutcome.Planned.class);
        PlanOutcome.Planned planned = (PlanOutcome.Planned) plan;
        Map<String, Shown> helper = new LinkedHashMap<>();
        for (PlannedHostdev h : planned.hostdevs()) {
            String name = h.alias().substring("ua-gpu-".length());
            helper.put(name, switch (h) {
                case PlannedHostdev.Pci p -> new Shown(p.display(), p.ramfb());
                case PlannedHostdev.Mdev m -> new Shown(m.display(), m.ramfb());
            });
        }
        assertThat(helper).isEqualTo(KubeVirtOracle.hostDevices(release, admitted));
        assertThat(planned.warnings().isEmpty()).as("warned").isEqualTo(!panics(release, written));
    }

    /** Whether virt-launcher of {@code release} panics on the VMI as written. */
    private static boolean panics(KubeVirtRelease release, List<Gpu> written) {
        try {
            KubeVirtOracle.hostDevices(release, written);
            return false;
        } catch (KubeVirtOracle.Panic e) {
            return true;
        }
    }

    private static LauncherEnv env(List<Gpu> gpus) {
        Map<String, String> env = new LinkedHashMap<>();
        for (int i = 0; i < gpus.size(); i++) {
            Gpu g = gpus.get(i);
            env.put(g.pci() ? KubeVirtHostdevCasesTest.pciVar(resource(g)) : KubeVirtHostdevCasesTest.mdevVar(resource(g)),
                    g.pci() ? String.format("0000:81:%02x.0", i) : String.format("0e2d9c6a-3b1f-4c2e-9a7d-5f8b6c4d3e%02x", i));
        }
        return LauncherEnv.of(env);
    }

    private static String resource(Gpu g) {
        return "vendor.com/" + g.name();
    }

    private static String vmi(List<Gpu> gpus) {
        List<String> entries = new ArrayList<>();
        for (Gpu g : gpus) {
            entries.add("{\"name\":\"" + g.name() + "\",\"deviceName\":\"" + resource(g) + "\"" + options(g.options()) + "}");
        }
        return "{\"spec\":{\"domain\":{\"devices\":{\"gpus\":[" + String.join(",", entries) + "]}}}}";
    }

    private static String options(Options o) {
        if (o == null) return "";
        if (o.display() == null) return ",\"virtualGPUOptions\":{}";
        List<String> fields = new ArrayList<>();
        if (o.display().enabled() != null) fields.add("\"enabled\":" + o.display().enabled());
        FeatureState ramFb = o.display().ramFB();
        if (ramFb != null) fields.add("\"ramFB\":{" + (ramFb.enabled() == null ? "" : "\"enabled\":" + ramFb.enabled()) + "}");
        return ",\"virtualGPUOptions\":{\"display\":{" + String.join(",", fields) + "}}";
    }

    @Provide
    Arbitrary<List<Gpu>> gpus() {
        Arbitrary<Boolean> flag = Arbitraries.of(Optional.<Boolean>empty(), Optional.of(true), Optional.of(false)).map(o -> o.orElse(null));
        Arbitrary<FeatureState> ramFb = Arbitraries.oneOf(Arbitraries.just((FeatureState) null), flag.map(FeatureState::new));
        Arbitrary<Options> options = Arbitraries.oneOf(Arbitraries.just((Options) null), Arbitraries.just(new Options(null)),
                Combinators.combine(flag, ramFb).as((enabled, fb) -> new Options(new Display(enabled, fb))));
        Arbitrary<Gpu> gpu = Combinators.combine(Arbitraries.of(true, false), options).as((pci, o) -> new Gpu("", pci, o));
        return gpu.list().ofMinSize(1).ofMaxSize(4).map(list -> {
            List<Gpu> named = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) named.add(new Gpu("gpu" + i, list.get(i).pci(), list.get(i).options()));
            return named;
        });
    }
}
