package io.vfiodp.host.uevent;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.ChangedDevices;
import io.vfiodp.host.PciAddress;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Parsing kernel uevents and what they name. The messages are those Linux 6.1 sent in the
 * real-kernel tests' guest (see {@code src/test/kernel}) for an unbind from vfio-pci, a bind, and
 * the group node that came and went with them.
 */
class UeventTest {

    static byte[] message(String header, String... properties) {
        StringBuilder b = new StringBuilder(header).append('\0');
        for (String p : properties) b.append(p).append('\0');
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    static UeventReceipt parse(byte[] m) {
        return Uevent.parse(m, m.length);
    }

    private static Uevent event(byte[] m) {
        return ((UeventReceipt.Event) parse(m)).event();
    }

    static final byte[] PCI_BIND = message("bind@/devices/pci0000:00/0000:00:02.0/0000:01:00.0",
            "ACTION=bind", "DEVPATH=/devices/pci0000:00/0000:00:02.0/0000:01:00.0", "SUBSYSTEM=pci", "DRIVER=vfio-pci",
            "PCI_CLASS=FF00", "PCI_ID=1234:11E8", "PCI_SUBSYS_ID=1AF4:1100", "PCI_SLOT_NAME=0000:01:00.0",
            "MODALIAS=pci:v00001234d000011E8sv00001AF4sd00001100bc00scFFi00", "SEQNUM=742");

    @Test
    void aPciBindIsParsedWithEveryProperty() {
        Uevent e = event(PCI_BIND);

        assertThat(e.action()).isEqualTo("bind");
        assertThat(e.devpath()).isEqualTo("/devices/pci0000:00/0000:00:02.0/0000:01:00.0");
        assertThat(e.subsystem()).isEqualTo("pci");
        assertThat(e.seqnum()).isEqualTo(742);
        assertThat(e.properties()).containsEntry("DRIVER", "vfio-pci").containsEntry("PCI_SLOT_NAME", "0000:01:00.0").hasSize(10);
    }

    @Test
    void aPciEventNamesItsFunction() {
        assertThat(event(PCI_BIND).changes()).contains(ChangedDevices.function(pci("0000:01:00.0")));
    }

    @Test
    void aVfioDevEventNamesTheFunctionItBelongsTo() {
        Uevent e = event(message("add@/devices/pci0000:00/0000:00:02.0/0000:01:00.0/vfio-dev/vfio0",
                "ACTION=add", "DEVPATH=/devices/pci0000:00/0000:00:02.0/0000:01:00.0/vfio-dev/vfio0", "SUBSYSTEM=vfio-dev", "SEQNUM=741"));

        assertThat(e.changes()).contains(ChangedDevices.function(pci("0000:01:00.0")));
    }

    @Test
    void aGroupNodeEventNamesNoDeviceButCounts() {
        Uevent e = event(message("remove@/devices/virtual/vfio/9", "ACTION=remove", "DEVPATH=/devices/virtual/vfio/9",
                "SUBSYSTEM=vfio", "MAJOR=245", "MINOR=0", "DEVNAME=vfio/9", "SEQNUM=738"));

        assertThat(e.changes()).contains(ChangedDevices.NONE);
    }

    @Test
    void anMdevEventNamesTheMdevAndItsParent() {
        String uuid = "0b2c1f6e-7a4d-4c39-8e52-3d9f0a6b1c27";
        Uevent e = event(message("add@/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/" + uuid, "ACTION=add",
                "DEVPATH=/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/" + uuid, "SUBSYSTEM=mdev", "MDEV_TYPE=nvidia-222",
                "SEQNUM=90"));

        assertThat(e.changes()).contains(ChangedDevices.of(Set.of(pci("0000:3b:00.0")), Set.of(uuid)));
    }

    @Test
    void otherSubsystemsNameNothing() {
        Uevent e = event(message("unbind@/devices/pci0000:00/0000:00:02.3/0000:05:00.0/virtio0", "ACTION=unbind",
                "DEVPATH=/devices/pci0000:00/0000:00:02.3/0000:05:00.0/virtio0", "SUBSYSTEM=virtio", "SEQNUM=743"));

        assertThat(e.changes()).isEmpty();
    }

    @Test
    void aMessageWithoutTheKernelHeaderIsDroppedAndSaysWhy() {
        assertThat(parse(message("libudev", "ACTION=add"))).isEqualTo(
                new UeventReceipt.Dropped("not a kernel uevent: header 'libudev' is not ACTION@DEVPATH"));
    }

    @Test
    void aMessageWithoutSubsystemIsDropped() {
        assertThat(parse(message("add@/devices/x", "ACTION=add", "DEVPATH=/devices/x", "SEQNUM=1"))).isEqualTo(
                new UeventReceipt.Dropped("uevent add@/devices/x: no SUBSYSTEM property"));
    }

    @Test
    void aHeaderThatDisagreesWithItsPropertiesIsDropped() {
        assertThat(parse(message("add@/devices/x", "ACTION=remove", "DEVPATH=/devices/x", "SUBSYSTEM=pci", "SEQNUM=1")))
                .isEqualTo(new UeventReceipt.Dropped("uevent add@/devices/x: header disagrees with ACTION=remove DEVPATH=/devices/x"));
    }

    @Test
    void aPropertyWithoutEqualsSignIsDropped() {
        assertThat(parse(message("add@/devices/x", "ACTION=add", "garbage"))).isEqualTo(
                new UeventReceipt.Dropped("uevent add@/devices/x: property 'garbage' is not KEY=VALUE"));
    }

    @Test
    void aSeqnumThatIsNoNumberIsDropped() {
        assertThat(parse(message("add@/devices/x", "ACTION=add", "DEVPATH=/devices/x", "SUBSYSTEM=pci", "SEQNUM=many")))
                .isEqualTo(new UeventReceipt.Dropped("uevent add@/devices/x: SEQNUM 'many' is not a number"));
    }

    @Test
    void bytesThatAreNotUtf8AreDropped() {
        byte[] m = {'a', 'd', 'd', '@', '/', (byte) 0xc3, (byte) 0x28, 0};
        assertThat(parse(m)).isEqualTo(new UeventReceipt.Dropped("not a kernel uevent: not UTF-8 text"));
    }

    private static PciAddress pci(String address) {
        return PciAddress.parse(address);
    }
}
