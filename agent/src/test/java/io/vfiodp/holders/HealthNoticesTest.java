package io.vfiodp.holders;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.kubelet.HeldDevice;
import io.vfiodp.kubelet.PodResourcesReading;
import io.vfiodp.policy.Health;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A held device's health change is told to its pod once per change, not once per view. */
class HealthNoticesTest {

    static final OfferedDevice SICK = AttributionTest.PCI_A.withHealth(Health.unhealthy("IOMMU group 24: /dev/vfio/24 missing"));
    static final List<HeldDevice> HELD = List.of(AttributionTest.plugin("vms/virt-launcher-vm1-x7k2p", "compute", AttributionTest.T4,
            AttributionTest.PCI_A.id()));

    static HolderView view(OfferedDevice device, List<HeldDevice> held) {
        return Attribution.of(new PodResourcesReading.Listed(held), AttributionTest.PODS, List.of(device), AttributionTest.DRIVER);
    }

    @Test
    void aHeldDeviceTurningUnhealthyIsToldOnceHoweverManyViewsFollow() {
        HealthNotices.Step first = HealthNotices.next(Set.of(), view(AttributionTest.PCI_A, HELD));
        HealthNotices.Step sick = HealthNotices.next(first.told(), view(SICK, HELD));
        HealthNotices.Step again = HealthNotices.next(sick.told(), view(SICK, HELD));

        assertThat(first.notices()).isEmpty();
        assertThat(sick.notices()).singleElement().satisfies(n -> {
            assertThat(n.unhealthy()).isTrue();
            assertThat(n.holder().podName()).isEqualTo("vms/virt-launcher-vm1-x7k2p");
            assertThat(n.holder().vmi()).contains(AttributionTest.VMI_1);
            assertThat(n.containers()).containsExactly("compute");
        });
        assertThat(again.notices()).isEmpty();
    }

    @Test
    void aNewReasonIsANewChangeAndRecoveryIsToldToo() {
        HealthNotices.Step sick = HealthNotices.next(Set.of(), view(SICK, HELD));
        HealthNotices.Step worse = HealthNotices.next(sick.told(), view(AttributionTest.PCI_A.withHealth(Health.unhealthy("gone")), HELD));
        HealthNotices.Step healed = HealthNotices.next(worse.told(), view(AttributionTest.PCI_A, HELD));

        assertThat(worse.notices()).singleElement().satisfies(n -> assertThat(n.device().health()).isEqualTo(Health.unhealthy("gone")));
        assertThat(healed.notices()).singleElement().satisfies(n -> assertThat(n.unhealthy()).isFalse());
        assertThat(healed.told()).isEmpty();
    }

    @Test
    void aFreeDeviceTurningUnhealthyTellsNobody() {
        assertThat(HealthNotices.next(Set.of(), view(SICK, List.of())).notices()).isEmpty();
    }

    @Test
    void whileHoldersAreUnknownNothingIsToldOrForgotten() {
        HealthNotices.Step sick = HealthNotices.next(Set.of(), view(SICK, HELD));
        HolderView unknown = Attribution.of(new PodResourcesReading.Unreadable("down"), AttributionTest.PODS, List.of(SICK),
                AttributionTest.DRIVER);

        HealthNotices.Step during = HealthNotices.next(sick.told(), unknown);
        HealthNotices.Step back = HealthNotices.next(during.told(), view(SICK, HELD));

        assertThat(during.notices()).isEmpty();
        assertThat(back.notices()).isEmpty();
    }

    @Test
    void aPodThatLetGoIsForgottenWithoutAWord() {
        HealthNotices.Step sick = HealthNotices.next(Set.of(), view(SICK, HELD));

        HealthNotices.Step gone = HealthNotices.next(sick.told(), view(SICK, List.of()));

        assertThat(gone.notices()).isEmpty();
        assertThat(gone.told()).isEmpty();
    }
}
