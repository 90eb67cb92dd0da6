package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.PciAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Which hostdevs go into a domain and at which guest addresses: each row below reads
 * {@code <host source> <alias> @ <guest address>}, {@code +mf} where {@code multifunction='on'}.
 * (HostdevXmlTest has libvirt itself accept the XML these placements become.)
 */
class HostdevPlacementTest {

    static PlannedHostdev.Pci gpu(String alias, String address, String... companions) {
        return new PlannedHostdev.Pci(alias, PciAddress.parse(address), Arrays.stream(companions).map(PciAddress::parse).toList(),
                alias + " origin");
    }

    static HostdevPlacement.Placed placed(HostdevPlacement.Result result) {
        assertThat(result).isInstanceOf(HostdevPlacement.Placed.class);
        return (HostdevPlacement.Placed) result;
    }

    static List<String> blocked(HostdevPlacement.Result result) {
        assertThat(result).isInstanceOf(HostdevPlacement.Blocked.class);
        return ((HostdevPlacement.Blocked) result).problems();
    }

    static HostdevPlacement.Result place(PlannedHostdev... plan) {
        return HostdevPlacement.place(List.of(plan), List.of(), Map.of(), Set.of());
    }

    static List<String> rows(List<HostDev> hostdevs) {
        List<String> out = new ArrayList<>();
        for (HostDev h : hostdevs) out.add(row(h));
        return out;
    }

    static String row(HostDev h) {
        String source = HostdevElements.key(h).orElseThrow().replaceFirst("^pci:", "");
        if (h.address == null) return source + " " + h.alias.name;
        PciAddress at = DomainDocument.guestAddress(h.address.type, h.address.domain, h.address.bus, h.address.slot, h.address.function)
                .orElseThrow();
        return source + " " + h.alias.name + " @ " + at + ("on".equals(h.address.multifunction) ? " +mf" : "");
    }

    /** A hostdev already in the domain, at {@code guest} if given. */
    static HostDev existing(String source, String alias, String guest) {
        HostDev h = HostdevElements.pci(PciAddress.parse(source), alias);
        if (guest != null) {
            h.address = HostdevElements.guestPci(PciAddress.parse(guest));
            h.address.multifunction = null;
        }
        return h;
    }

    @Nested
    class Slots {

        @Test
        void aDeviceWithoutCompanionsIsLeftForLibvirtToPlace() {
            HostdevPlacement.Placed p = placed(place(gpu("ua-gpu-a", "0000:3b:00.0")));
            assertThat(rows(p.additions())).containsExactly("0000:3b:00.0 ua-gpu-a");
            assertThat(p.added()).containsExactly("ua-gpu-a");
            assertThat(p.changed()).isEmpty();
        }

        @Test
        void companionsOfTheSameSlotShareTheDevicesGuestSlotWithTheirHostFunctions() {
            HostdevPlacement.Placed p = placed(place(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1", "0000:3b:00.3")));
            assertThat(rows(p.additions())).containsExactly(
                    "0000:3b:00.0 ua-gpu-a @ 0000:00:10.0 +mf",
                    "0000:3b:00.1 ua-gpu-a-fn1 @ 0000:00:10.1",
                    "0000:3b:00.3 ua-gpu-a-fn3 @ 0000:00:10.3");
            assertThat(p.added()).containsExactly("ua-gpu-a", "ua-gpu-a-fn1", "ua-gpu-a-fn3");
        }

        @Test
        void aDeviceOnAHostFunctionOtherThanZeroKeepsItsFunctionNumber() {
            HostdevPlacement.Placed p = placed(place(gpu("ua-gpu-a", "0000:3b:00.1", "0000:3b:00.0")));
            assertThat(rows(p.additions())).containsExactly(
                    "0000:3b:00.1 ua-gpu-a @ 0000:00:10.1",
                    "0000:3b:00.0 ua-gpu-a-fn0 @ 0000:00:10.0 +mf");
        }

        @Test
        void eachDeviceWithCompanionsTakesTheNextFreeSlot() {
            HostdevPlacement.Placed p = placed(place(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1"), gpu("ua-gpu-b", "0000:86:00.0"),
                    gpu("ua-gpu-c", "0000:af:00.0", "0000:af:00.1")));
            assertThat(rows(p.additions())).containsExactly(
                    "0000:3b:00.0 ua-gpu-a @ 0000:00:10.0 +mf",
                    "0000:3b:00.1 ua-gpu-a-fn1 @ 0000:00:10.1",
                    "0000:86:00.0 ua-gpu-b",
                    "0000:af:00.0 ua-gpu-c @ 0000:00:11.0 +mf",
                    "0000:af:00.1 ua-gpu-c-fn1 @ 0000:00:11.1");
        }

        @Test
        void slotsTakenInTheDomainAreSkipped() {
            HostdevPlacement.Result r = HostdevPlacement.place(List.of(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1")), List.of(),
                    Map.of(PciAddress.parse("0000:00:10.3"), "<interface>"), Set.of());
            assertThat(rows(placed(r).additions())).containsExactly(
                    "0000:3b:00.0 ua-gpu-a @ 0000:00:11.0 +mf",
                    "0000:3b:00.1 ua-gpu-a-fn1 @ 0000:00:11.1");
        }
    }

    @Nested
    class GroupMatesOfOtherSlots {

        @Test
        void functionZeroOfAnotherSlotGetsASlotOfItsOwnAndTheDevicesFunctionsKeepTheirs() {
            HostdevPlacement.Placed p = placed(place(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1", "0000:3c:00.0")));
            assertThat(rows(p.additions())).containsExactly(
                    "0000:3b:00.0 ua-gpu-a @ 0000:00:10.0 +mf",
                    "0000:3b:00.1 ua-gpu-a-fn1 @ 0000:00:10.1",
                    "0000:3c:00.0 ua-gpu-a-3c00-fn0 @ 0000:00:11.0 +mf");
        }

        @Test
        void functionsOfAnotherSlotWithItsFunctionZeroShareOneSlot() {
            HostdevPlacement.Placed p = placed(place(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3c:00.1", "0000:3c:00.0", "0000:3d:00.0")));
            assertThat(rows(p.additions())).containsExactly(
                    "0000:3b:00.0 ua-gpu-a",
                    "0000:3c:00.1 ua-gpu-a-3c00-fn1 @ 0000:00:10.1",
                    "0000:3c:00.0 ua-gpu-a-3c00-fn0 @ 0000:00:10.0 +mf",
                    "0000:3d:00.0 ua-gpu-a-3d00-fn0 @ 0000:00:11.0 +mf");
        }

        @Test
        void functionsOfAnotherSlotWithoutItsFunctionZeroEachGetFunctionZeroOfASlot() {
            HostdevPlacement.Placed p = placed(place(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3c:00.1", "0000:3c:00.2")));
            assertThat(rows(p.additions())).containsExactly(
                    "0000:3b:00.0 ua-gpu-a",
                    "0000:3c:00.1 ua-gpu-a-3c00-fn1 @ 0000:00:10.0 +mf",
                    "0000:3c:00.2 ua-gpu-a-3c00-fn2 @ 0000:00:11.0 +mf");
        }

        @Test
        void noFreeSlotForAGroupMateIsRefusedNamingIt() {
            List<PlannedHostdev> plan = new ArrayList<>();
            for (int bus = 0x30; bus < 0x39; bus++) plan.add(gpu(String.format("ua-gpu-g%02x", bus), String.format("0000:%02x:00.0", bus),
                    String.format("0000:%02x:00.1", bus)));
            plan.add(gpu("ua-gpu-last", "0000:3b:00.0", "0000:3b:00.1", "0000:3c:00.0"));
            assertThat(blocked(HostdevPlacement.place(plan, List.of(), Map.of(), Set.of()))).containsExactly(
                    "ua-gpu-last origin: no free guest slot for its group mates [0000:3c:00.0]: slots 0x10..0x19 of bus 0x00 are all in use");
        }
    }

    @Nested
    class AnExistingDomain {

        @Test
        void aDeviceAlreadyAttachedIsNotAddedAgain() {
            HostdevPlacement.Result r = HostdevPlacement.place(List.of(gpu("ua-gpu-a", "0000:3b:00.0")),
                    List.of(existing("0000:3b:00.0", "ua-gpu-a", null)), Map.of(), Set.of("ua-gpu-a"));
            assertThat(placed(r)).isEqualTo(new HostdevPlacement.Placed(List.of(), new java.util.TreeMap<>(),
                    List.of(), List.of()));
        }

        @Test
        void anAttachedDeviceWithoutAGuestAddressGetsASlotForItsCompanionsAndIsRewritten() {
            HostDev kubevirts = existing("0000:3b:00.0", "ua-gpu-a", null);
            kubevirts.mode = null;
            HostdevPlacement.Placed p = placed(HostdevPlacement.place(List.of(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1")),
                    List.of(existing("0000:5e:00.0", "ua-other", null), kubevirts), Map.of(), Set.of("ua-gpu-a", "ua-other")));
            assertThat(p.changed()).containsOnlyKeys(1);
            assertThat(row(p.changed().get(1))).isEqualTo("0000:3b:00.0 ua-gpu-a @ 0000:00:10.0 +mf");
            assertThat(p.changed().get(1).mode).isEqualTo("subsystem");
            assertThat(p.updated()).containsExactly("ua-gpu-a");
            assertThat(rows(p.additions())).containsExactly("0000:3b:00.1 ua-gpu-a-fn1 @ 0000:00:10.1");
        }

        @Test
        void anAttachedDeviceAtGuestFunctionZeroKeepsItsSlotAndGainsMultifunction() {
            HostdevPlacement.Placed p = placed(HostdevPlacement.place(List.of(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1")),
                    List.of(existing("0000:3b:00.0", "ua-gpu-a", "0000:00:05.0")), Map.of(PciAddress.parse("0000:00:05.0"), "ua-gpu-a"),
                    Set.of("ua-gpu-a")));
            assertThat(row(p.changed().get(0))).isEqualTo("0000:3b:00.0 ua-gpu-a @ 0000:00:05.0 +mf");
            assertThat(rows(p.additions())).containsExactly("0000:3b:00.1 ua-gpu-a-fn1 @ 0000:00:05.1");
        }

        @Test
        void aCompanionAlreadyInTheDomainIsNotAddedAgain() {
            HostdevPlacement.Placed p = placed(HostdevPlacement.place(List.of(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1", "0000:3b:00.2")),
                    List.of(existing("0000:3b:00.1", "ua-mine", null)), Map.of(), Set.of("ua-mine")));
            assertThat(rows(p.additions())).containsExactly(
                    "0000:3b:00.0 ua-gpu-a @ 0000:00:10.0 +mf",
                    "0000:3b:00.2 ua-gpu-a-fn2 @ 0000:00:10.2");
        }
    }

    @Nested
    class Refusals {

        @Test
        void aDevicePlannedTwiceIsRefused() {
            assertThat(blocked(place(gpu("ua-gpu-a", "0000:3b:00.0"), gpu("ua-gpu-b", "0000:3b:00.0"))))
                    .containsExactly("ua-gpu-b origin: device 0000:3b:00.0 is planned twice");
        }

        @Test
        void anAliasTheDomainUsesIsRefused() {
            assertThat(blocked(HostdevPlacement.place(List.of(gpu("ua-gpu-a", "0000:3b:00.0")), List.of(), Map.of(), Set.of("ua-gpu-a"))))
                    .containsExactly("ua-gpu-a origin: alias ua-gpu-a is already used by another device of the domain");
        }

        @Test
        void aCompanionsAliasTheDomainUsesIsRefused() {
            assertThat(blocked(HostdevPlacement.place(List.of(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1")), List.of(), Map.of(),
                    Set.of("ua-gpu-a-fn1"))))
                    .containsExactly("ua-gpu-a origin: alias ua-gpu-a-fn1 is already used by another device of the domain");
        }

        @Test
        void aCompanionWhoseGuestAddressIsHeldIsRefusedNamingTheHolder() {
            assertThat(blocked(HostdevPlacement.place(List.of(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1")),
                    List.of(existing("0000:3b:00.0", "ua-gpu-a", "0000:00:05.0")),
                    Map.of(PciAddress.parse("0000:00:05.0"), "ua-gpu-a", PciAddress.parse("0000:00:05.1"), "<interface>"), Set.of("ua-gpu-a"))))
                    .containsExactly("ua-gpu-a origin: companion 0000:3b:00.1 needs guest address 0000:00:05.1, which <interface> holds");
        }

        @Test
        void companionsOfADeviceAtGuestFunctionOtherThanZeroAreRefused() {
            assertThat(blocked(HostdevPlacement.place(List.of(gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1")),
                    List.of(existing("0000:3b:00.0", "ua-gpu-a", "0000:00:05.2")), Map.of(PciAddress.parse("0000:00:05.2"), "ua-gpu-a"),
                    Set.of("ua-gpu-a"))))
                    .containsExactly("ua-gpu-a origin: ua-gpu-a sits at guest function 2 of its slot; its companions need multifunction='on'"
                            + " on function 0, which another device holds");
        }

        @Test
        void moreDevicesWithCompanionsThanFreeSlotsAreRefused() {
            List<PlannedHostdev> plan = new ArrayList<>();
            for (int bus = 0x30; bus <= 0x3a; bus++) plan.add(gpu(String.format("ua-gpu-g%02x", bus), String.format("0000:%02x:00.0", bus),
                    String.format("0000:%02x:00.1", bus)));
            assertThat(blocked(HostdevPlacement.place(plan, List.of(), Map.of(), Set.of()))).containsExactly(
                    "ua-gpu-g3a origin: no free guest slot for ua-gpu-g3a and its companions: slots 0x10..0x19 of bus 0x00 are all in use");
        }
    }
}
