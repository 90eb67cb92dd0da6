package io.vfiodp.handover;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.DraNodes;
import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.node.TargetState;
import io.vfiodp.handover.Handover.Reason;
import io.vfiodp.handover.Handover.Wait;
import io.vfiodp.policy.DesiredState;
import io.vfiodp.policy.DraRouting;
import io.vfiodp.policy.ResourceName;
import io.vfiodp.policy.Route;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Which devices each side may offer during a switch, from what the sides offer, what claims and
 * pods hold and what the device plugins offered before. The t4-numa node's one resource has four
 * devices; routed to DRA, they go to the driver, else to the device plugin.
 */
class HandoverTest {

    private static final ResourceName T4 = ResourceName.of("nvidia.com/TU104GL_TESLA_T4");
    private static final TargetState TO_DRA = DraNodes.state("t4-numa", DraRouting.ALL);
    private static final TargetState TO_PLUGINS = DraNodes.state("t4-numa", DraRouting.NONE);
    private static final Set<String> ALL = Set.of("0000:1a:00.0", "0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0");
    private static final String POD = "vms/virt-launcher-vm1-abcde";

    private static Handover.Inputs inputs(TargetState wanted, Set<String> pluginsServe, Set<String> draServes, Set<String> claimed,
                                          HandoverRecord record) {
        return new Handover.Inputs(wanted, pluginsServe, draServes, claimed, record, Optional.empty());
    }

    private static Set<String> plugins(TargetState t) {
        return ids(t.plugins());
    }

    private static Set<String> dra(TargetState t) {
        return ids(t.dra().resources());
    }

    private static Set<String> ids(DesiredState s) {
        Set<String> out = new TreeSet<>();
        s.resources().values().forEach(r -> r.devices().forEach(d -> out.add(d.id())));
        return out;
    }

    private static PodResourcesReading podHolds(String... ids) {
        return new PodResourcesReading.Listed(List.of(ids).stream()
                .<HeldDevice>map(id -> new HeldDevice.ByPlugin(POD, "compute", T4.value(), id)).toList());
    }

    @Test
    void withNothingForDraTheDevicePluginsGetEveryDeviceAndTheRecordNamesThem() {
        Handover.Outcome o = Handover.decide(inputs(TO_PLUGINS, Set.of(), Set.of(), Set.of(), HandoverRecord.Known.NONE));

        assertThat(plugins(o.target())).isEqualTo(ALL);
        assertThat(o.record()).isEqualTo(new HandoverRecord.Known(ALL));
        assertThat(o.waits()).isEmpty();
    }

    @Test
    void devicesTheDevicePluginsNeverOfferedGoToDraWithoutAskingPodResources() {
        Handover.Inputs in = inputs(TO_DRA, Set.of(), Set.of(), Set.of(), HandoverRecord.Known.NONE);

        assertThat(Handover.needsPods(in)).isFalse();
        Handover.Outcome o = Handover.decide(in);
        assertThat(dra(o.target())).isEqualTo(ALL);
        assertThat(o.target().dra().profiles().keySet()).isEqualTo(ALL);
        assertThat(o.record()).isEqualTo(HandoverRecord.Known.NONE);
    }

    @Test
    void aDeviceTheDevicePluginsOfferedWaitsForPodResourcesBeforeItGoesToDra() {
        Handover.Inputs in = inputs(TO_DRA, Set.of(), Set.of(), Set.of(), new HandoverRecord.Known(Set.of("0000:b1:00.0")));

        assertThat(Handover.needsPods(in)).isTrue();
        Handover.Outcome o = Handover.decide(in);
        assertThat(dra(o.target())).containsExactly("0000:1a:00.0", "0000:1b:00.0", "0000:b2:00.0");
        assertThat(o.waits()).containsExactly(new Wait("0000:b1:00.0", T4, Route.DRA, Reason.UNPROVEN, Optional.empty()));
        assertThat(o.record()).isEqualTo(new HandoverRecord.Known(Set.of("0000:b1:00.0")));
    }

    @Test
    void podResourcesShowingItFreeLetsItGoToDraAndDropsItFromTheRecord() {
        Handover.Outcome o = Handover.decide(inputs(TO_DRA, Set.of(), Set.of(), Set.of(), new HandoverRecord.Known(Set.of("0000:b1:00.0")))
                .withPods(podHolds()));

        assertThat(dra(o.target())).isEqualTo(ALL);
        assertThat(o.waits()).isEmpty();
        assertThat(o.record()).isEqualTo(HandoverRecord.Known.NONE);
    }

    @Test
    void aDeviceAPodHoldsThroughTheDevicePluginStaysOutOfDraUntilThePodEnds() {
        Handover.Outcome o = Handover.decide(inputs(TO_DRA, Set.of(), Set.of(), Set.of(), new HandoverRecord.Known(ALL))
                .withPods(podHolds("0000:b1:00.0")));

        assertThat(dra(o.target())).containsExactly("0000:1a:00.0", "0000:1b:00.0", "0000:b2:00.0");
        assertThat(o.waits()).containsExactly(new Wait("0000:b1:00.0", T4, Route.DRA, Reason.POD_HOLDS, Optional.of(POD)));
        assertThat(o.record()).isEqualTo(new HandoverRecord.Known(Set.of("0000:b1:00.0")));
    }

    @Test
    void podResourcesThatDoNotAnswerMoveNothingToDraAndKeepTheRecord() {
        Handover.Outcome o = Handover.decide(inputs(TO_DRA, Set.of(), Set.of(), Set.of(), new HandoverRecord.Known(ALL))
                .withPods(new PodResourcesReading.Unreadable("kubelet restarting")));

        assertThat(dra(o.target())).isEmpty();
        assertThat(o.target().dra().profiles()).isEmpty();
        assertThat(o.waits()).extracting(Wait::reason).containsOnly(Reason.UNPROVEN).hasSize(4);
        assertThat(o.record()).isEqualTo(new HandoverRecord.Known(ALL));
    }

    @Test
    void aDeviceTheDevicePluginsStillOfferGoesToDraOnlyAtTheNextPassWhateverPodResourcesSays() {
        Handover.Outcome o = Handover.decide(inputs(TO_DRA, Set.of("0000:1a:00.0"), Set.of(), Set.of(), new HandoverRecord.Known(Set.of("0000:1a:00.0")))
                .withPods(podHolds()));

        assertThat(dra(o.target())).containsExactly("0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0");
        assertThat(o.waits()).containsExactly(new Wait("0000:1a:00.0", T4, Route.DRA, Reason.OTHER_SIDE_OFFERS, Optional.empty()));
        // still offered when PodResources answered: a pod may take it yet
        assertThat(o.record()).isEqualTo(new HandoverRecord.Known(Set.of("0000:1a:00.0")));
    }

    @Test
    void aDeviceDraOffersAlreadyStaysWithoutAskingAgain() {
        Handover.Inputs in = inputs(TO_DRA, Set.of(), ALL, Set.of(), new HandoverRecord.Known(ALL));

        assertThat(Handover.needsPods(in)).isFalse();
        assertThat(dra(Handover.decide(in).target())).isEqualTo(ALL);
    }

    @Test
    void aDeviceDraStillOffersGoesToTheDevicePluginsAtTheNextPass() {
        Handover.Outcome o = Handover.decide(inputs(TO_PLUGINS, Set.of(), Set.of("0000:b1:00.0"), Set.of(), HandoverRecord.Known.NONE));

        assertThat(plugins(o.target())).containsExactly("0000:1a:00.0", "0000:1b:00.0", "0000:b2:00.0");
        assertThat(o.waits()).containsExactly(new Wait("0000:b1:00.0", T4, Route.DEVICE_PLUGIN, Reason.OTHER_SIDE_OFFERS, Optional.empty()));
        assertThat(o.record()).isEqualTo(new HandoverRecord.Known(Set.of("0000:1a:00.0", "0000:1b:00.0", "0000:b2:00.0")));
    }

    @Test
    void aDeviceAPreparedClaimHoldsStaysOutOfTheDevicePluginsUntilUnprepared() {
        Handover.Outcome o = Handover.decide(inputs(TO_PLUGINS, Set.of(), Set.of(), Set.of("0000:1b:00.0"), HandoverRecord.Known.NONE));

        assertThat(plugins(o.target())).containsExactly("0000:1a:00.0", "0000:b1:00.0", "0000:b2:00.0");
        assertThat(o.waits()).containsExactly(new Wait("0000:1b:00.0", T4, Route.DEVICE_PLUGIN, Reason.CLAIM_HOLDS, Optional.empty()));
    }

    @Test
    void aResourceWithEveryDeviceWaitingIsNotOfferedByTheDevicePluginsAtAll() {
        Handover.Outcome o = Handover.decide(inputs(TO_PLUGINS, Set.of(), Set.of("0000:1a:00.0", "0000:1b:00.0"),
                Set.of("0000:b1:00.0", "0000:b2:00.0"), HandoverRecord.Known.NONE));

        assertThat(o.target().plugins().resources()).isEmpty();
        assertThat(o.waits()).hasSize(4);
    }

    @Test
    void aLostRecordMakesEveryDeviceForDraWaitForPodResources() {
        Handover.Inputs in = inputs(TO_DRA, Set.of(), Set.of(), Set.of(), new HandoverRecord.Lost("the test lost it"));

        assertThat(Handover.needsPods(in)).isTrue();
        assertThat(dra(Handover.decide(in).target())).isEmpty();
        assertThat(Handover.decide(in).record()).isEqualTo(new HandoverRecord.Lost("the test lost it"));
    }

    @Test
    void podResourcesAnsweringReplacesALostRecordWithWhatMayBeHeld() {
        Handover.Outcome o = Handover.decide(inputs(TO_DRA, Set.of(), Set.of(), Set.of(), new HandoverRecord.Lost("the test lost it")).withPods(podHolds("0000:1a:00.0")));

        assertThat(dra(o.target())).containsExactly("0000:1b:00.0", "0000:b1:00.0", "0000:b2:00.0");
        assertThat(o.record()).isEqualTo(new HandoverRecord.Known(Set.of("0000:1a:00.0")));
    }
}
