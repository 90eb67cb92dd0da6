package io.vfiodp.libvirt;

import static io.vfiodp.libvirt.LibvirtTools.assertDomainAccepted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vfiodp.host.PciAddress;
import io.vfiodp.libvirt.DomainDocument.DevicesLocation;
import io.vfiodp.libvirt.DomainDocument.ExistingHostdev;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;

/**
 * What {@link DomainDocument} reads from a domain: where {@code <devices>} is, each hostdev in it
 * with its exact span, the guest PCI addresses and aliases already taken. Its offsets are what
 * the merge splices at, so edits made at them are handed to libvirt ({@link LibvirtTools}), which
 * must accept the result.
 */
class DomainDocumentTest {

    private static final SecureXml XML = new SecureXml();
    private static final HostdevCodec CODEC = new HostdevCodec();
    private static final String KUBEVIRT_DOMAIN = HostdevXmlTest.resource("kubevirt-gpu-domain.xml");
    private static final String KUBEVIRT_GPU = """
            <hostdev type="pci" managed="no">
            			<source writeFiltering="no">
            				<address domain="0x0000" bus="0x3b" slot="0x00" function="0x0"></address>
            			</source>
            			<alias name="ua-gpu-gpu0"></alias>
            			<boot order="3"></boot>
            			<acpi index="7"></acpi>
            		</hostdev>""";
    private static final String NEW_GPU = "<hostdev mode='subsystem' type='pci' managed='no'><source>"
            + "<address domain='0x0000' bus='0x86' slot='0x00' function='0x0'/></source><alias name='ua-gpu-gpu1'/></hostdev>";
    private static final String HEAD = "<domain type='kvm'><name>t</name><memory>1048576</memory>"
            + "<os><type arch='x86_64' machine='q35'>hvm</type></os>";

    private static DomainDocument parse(String text) throws DomainXmlException {
        return DomainDocument.parse(text, XML, CODEC);
    }

    private static String splice(String text, int start, int end, String with) {
        return text.substring(0, start) + with + text.substring(end);
    }

    @Nested
    class KubeVirtsDomain {

        @Test
        void isADomainLibvirtAccepts() {
            assertDomainAccepted(KUBEVIRT_DOMAIN);
        }

        @Test
        void devicesIsFoundByItsTags() throws DomainXmlException {
            DomainDocument doc = parse(KUBEVIRT_DOMAIN);

            DevicesLocation.Open open = (DevicesLocation.Open) doc.devices();
            assertThat(KUBEVIRT_DOMAIN.substring(open.startTagStart(), open.startTagEnd())).isEqualTo("<devices>");
            assertThat(KUBEVIRT_DOMAIN.substring(open.endTagStart())).startsWith("</devices>\n\t<clock");
            assertThat(doc.text()).isSameAs(KUBEVIRT_DOMAIN);
        }

        @Test
        void theFirstDeviceAndTheFirstDomainChildAreWhereTheirTagsStart() throws DomainXmlException {
            DomainDocument doc = parse(KUBEVIRT_DOMAIN);

            assertThat(doc.firstDeviceStart()).isEqualTo(KUBEVIRT_DOMAIN.indexOf("<interface type=\"ethernet\">"));
            assertThat(doc.firstDomainChildStart()).isEqualTo(KUBEVIRT_DOMAIN.indexOf("<name>"));
        }

        @Test
        void theHostdevSpansExactlyItsMarkupAndIsReadWithWhatTheModelDoesNotKnow() throws DomainXmlException {
            DomainDocument doc = parse(KUBEVIRT_DOMAIN);

            assertThat(doc.hostdevs()).hasSize(1);
            ExistingHostdev h = doc.hostdevs().getFirst();
            assertThat(KUBEVIRT_DOMAIN.substring(h.start(), h.end())).isEqualTo(KUBEVIRT_GPU);
            assertThat(h.model().type).isEqualTo("pci");
            assertThat(h.model().mode).isNull();
            assertThat(h.model().managed).isEqualTo("no");
            assertThat(h.model().source.address.bus).isEqualTo("0x3b");
            assertThat(h.model().source.otherAttributes).extractingFromEntries(e -> e.getKey().getLocalPart() + "=" + e.getValue())
                    .containsExactly("writeFiltering=no");
            assertThat(h.model().alias.name).isEqualTo("ua-gpu-gpu0");
            assertThat(h.model().address).isNull();
            assertThat(h.model().otherElements).extracting(Element::getLocalName).containsExactly("boot", "acpi");
        }

        @Test
        void guestPciAddressesAndAliasesOfEveryDeviceAreTaken() throws DomainXmlException {
            DomainDocument doc = parse(KUBEVIRT_DOMAIN);

            assertThat(doc.guestPciAddresses()).containsOnly(
                    Map.entry(PciAddress.parse("0000:00:10.0"), "<interface>"),
                    Map.entry(PciAddress.parse("0000:00:11.0"), "<memballoon>"));
            assertThat(doc.aliases()).containsExactlyInAnyOrder("ua-default", "ua-containerdisk", "ua-cloudinitdisk", "ua-gpu-gpu0");
        }

        @Test
        void aHostdevInsertedAtTheDevicesEndIsAcceptedAndReadBackWithItsSpan() throws DomainXmlException {
            int at = ((DevicesLocation.Open) parse(KUBEVIRT_DOMAIN).devices()).endTagStart();
            String edited = splice(KUBEVIRT_DOMAIN, at, at, NEW_GPU);

            assertDomainAccepted(edited);
            DomainDocument again = parse(edited);
            assertThat(again.hostdevs()).hasSize(2);
            ExistingHostdev added = again.hostdevs().getLast();
            assertThat(edited.substring(added.start(), added.end())).isEqualTo(NEW_GPU);
            assertThat(again.aliases()).contains("ua-gpu-gpu1");
        }

        @Test
        void theHostdevsSpanReplacedLeavesADomainLibvirtAcceptsWithoutIt() throws DomainXmlException {
            ExistingHostdev h = parse(KUBEVIRT_DOMAIN).hostdevs().getFirst();
            String edited = splice(KUBEVIRT_DOMAIN, h.start(), h.end(), NEW_GPU);

            assertDomainAccepted(edited);
            DomainDocument again = parse(edited);
            assertThat(again.hostdevs()).extracting(x -> x.model().alias.name).containsExactly("ua-gpu-gpu1");
            assertThat(again.aliases()).doesNotContain("ua-gpu-gpu0");
        }

        @Test
        void windowsLineEndsKeepTheSpansExact() throws DomainXmlException {
            String crlf = KUBEVIRT_DOMAIN.replace("\n", "\r\n");

            ExistingHostdev h = parse(crlf).hostdevs().getFirst();

            assertThat(crlf.substring(h.start(), h.end())).isEqualTo(KUBEVIRT_GPU.replace("\n", "\r\n"));
        }
    }

    @Nested
    class WhereDevicesGo {

        @Test
        void aSelfClosingDevicesIsSpannedWholeAndCanBeOpened() throws DomainXmlException {
            String text = HEAD + "<devices/></domain>";

            DomainDocument doc = parse(text);

            DevicesLocation.SelfClosing self = (DevicesLocation.SelfClosing) doc.devices();
            assertThat(text.substring(self.start(), self.end())).isEqualTo("<devices/>");
            assertThat(doc.firstDeviceStart()).isEqualTo(-1);
            assertThat(doc.hostdevs()).isEmpty();
            assertDomainAccepted(splice(text, self.start(), self.end(), "<devices>" + NEW_GPU + "</devices>"));
        }

        @Test
        void withoutDevicesTheDomainsEndTagIsWhereTheyGo() throws DomainXmlException {
            String text = HEAD + "</domain>";

            DomainDocument doc = parse(text);

            DevicesLocation.Absent absent = (DevicesLocation.Absent) doc.devices();
            assertThat(text.substring(absent.domainEndTagStart())).isEqualTo("</domain>");
            assertThat(doc.firstDomainChildStart()).isEqualTo(text.indexOf("<name>"));
            assertDomainAccepted(splice(text, absent.domainEndTagStart(), absent.domainEndTagStart(), "<devices>" + NEW_GPU + "</devices>"));
        }

        @Test
        void anEmptyDomainHasNoFirstChild() throws DomainXmlException {
            DomainDocument doc = parse("<domain type='kvm'></domain>");

            assertThat(doc.devices()).isEqualTo(new DevicesLocation.Absent(doc.text().indexOf("</domain>")));
            assertThat(doc.firstDomainChildStart()).isEqualTo(-1);
            assertThat(doc.firstDeviceStart()).isEqualTo(-1);
        }

        @Test
        void offsetsCountCharactersOfTheTextEvenPastCharactersOutsideTheBasicPlane() throws DomainXmlException {
            String text = HEAD.replace("<name>t</name>", "<name>t</name><title>GPU VM \uD83D\uDE80 é</title>") + "<devices>" + NEW_GPU
                    + "</devices></domain>";

            ExistingHostdev h = parse(text).hostdevs().getFirst();

            assertThat(text.substring(h.start(), h.end())).isEqualTo(NEW_GPU);
            assertDomainAccepted(text);
        }
    }

    @Nested
    class TakenAddressesAndAliases {

        private DomainDocument devices(String devices) throws DomainXmlException {
            return parse(HEAD + "<devices>" + devices + "</devices></domain>");
        }

        @Test
        void aHostdevsGuestAddressIsTakenByItAndItsAlias() throws DomainXmlException {
            DomainDocument doc = devices("<hostdev mode='subsystem' type='pci' managed='no'><source>"
                    + "<address domain='0x0000' bus='0x3b' slot='0x00' function='0x0'/></source><alias name='ua-gpu-gpu0'/>"
                    + "<address type='pci' domain='0x0000' bus='0x00' slot='0x12' function='0x0'/></hostdev>"
                    + "<hostdev mode='subsystem' type='pci' managed='no'><source>"
                    + "<address domain='0x0000' bus='0x86' slot='0x00' function='0x0'/></source>"
                    + "<address type='pci' domain='0x0000' bus='0x00' slot='0x13' function='0x0'/></hostdev>");

            assertThat(doc.guestPciAddresses()).containsOnly(
                    Map.entry(PciAddress.parse("0000:00:12.0"), "<hostdev> ua-gpu-gpu0"),
                    Map.entry(PciAddress.parse("0000:00:13.0"), "<hostdev>"));
            assertThat(doc.hostdevs()).hasSize(2);
        }

        @Test
        void aHostdevsSourceAddressIsTheHostsAndTakesNoGuestSlot() throws DomainXmlException {
            DomainDocument doc = devices(NEW_GPU);

            assertThat(doc.guestPciAddresses()).isEmpty();
        }

        @Test
        void theFirstDeviceToClaimAnAddressIsItsOwner() throws DomainXmlException {
            DomainDocument doc = devices("<interface type='ethernet'><address type='pci' domain='0x0000' bus='0x00' slot='0x10' function='0x0'/></interface>"
                    + "<memballoon model='virtio'><address type='pci' domain='0' bus='0' slot='16' function='0'/></memballoon>");

            assertThat(doc.guestPciAddresses()).containsOnly(Map.entry(PciAddress.parse("0000:00:10.0"), "<interface>"));
        }

        @Test
        void addressesThatPinNoPciSlotTakeNothing() throws DomainXmlException {
            DomainDocument doc = devices(
                    "<disk type='file' device='disk'><source file='/d.img'/><target dev='sda' bus='sata'/>"
                            + "<address type='drive' controller='0' bus='0' target='0' unit='0'/></disk>"
                            + "<interface type='ethernet'><address type='pci' bus='0x00'/></interface>"
                            + "<memballoon model='virtio'><address type='pci' domain='0x0000' bus='0x00' slot='0x20' function='0x0'/></memballoon>"
                            + "<watchdog model='i6300esb'><address type='pci' slot='0xzz'/></watchdog>");

            assertThat(doc.guestPciAddresses()).isEmpty();
        }

        @Test
        void aMissingDomainBusOrFunctionIsZeroAsLibvirtFillsItIn() throws DomainXmlException {
            DomainDocument doc = devices("<interface type='ethernet'><address type='pci' slot='0x05'/></interface>");

            assertThat(doc.guestPciAddresses()).containsOnlyKeys(PciAddress.parse("0000:00:05.0"));
        }

        @Test
        void onlyDirectChildrensAddressesAndAliasesCount() throws DomainXmlException {
            DomainDocument doc = devices("<controller type='pci' index='1' model='pcie-root-port'><target><address type='pci' slot='0x07'/>"
                    + "<alias name='nested'/></target><alias name='pci.1'/></controller>");

            assertThat(doc.guestPciAddresses()).isEmpty();
            assertThat(doc.aliases()).containsExactly("pci.1");
        }

        @Test
        void elementsInAnotherNamespaceAreNotLibvirtDevices() throws DomainXmlException {
            DomainDocument doc = devices("<x:hostdev xmlns:x='urn:other' type='pci'><x:alias name='not-ours'/></x:hostdev>"
                    + "<interface type='ethernet'><x:address xmlns:x='urn:other' type='pci' slot='0x09'/></interface>");

            assertThat(doc.hostdevs()).isEmpty();
            assertThat(doc.guestPciAddresses()).isEmpty();
            assertThat(doc.aliases()).isEmpty();
        }

        @Test
        void addressesOutsideDevicesTakeNoSlot() throws DomainXmlException {
            DomainDocument doc = parse(HEAD + "<metadata><address type='pci' slot='0x04'/><alias name='meta'/></metadata><devices/></domain>");

            assertThat(doc.guestPciAddresses()).isEmpty();
            assertThat(doc.aliases()).isEmpty();
        }
    }

    @Nested
    class Numbers {

        @Test
        void hexOctalAndDecimalAreReadAsLibvirtsStrtolReadsThem() {
            assertThat(DomainDocument.number("0x3b")).isEqualTo(0x3b);
            assertThat(DomainDocument.number("0X1F")).isEqualTo(31);
            assertThat(DomainDocument.number("010")).isEqualTo(8);
            assertThat(DomainDocument.number("16")).isEqualTo(16);
            assertThat(DomainDocument.number("0")).isZero();
            assertThat(DomainDocument.number(" 0x05 ")).isEqualTo(5);
            assertThat(DomainDocument.number(null)).isZero();
        }

        @Test
        void aNumberThatIsNoneOfThemIsRefusedNamingIt() {
            assertThatThrownBy(() -> DomainDocument.number("08")).isInstanceOf(NumberFormatException.class).hasMessageContaining("\"8\"");
            assertThatThrownBy(() -> DomainDocument.number("0xzz")).isInstanceOf(NumberFormatException.class).hasMessageContaining("\"zz\"");
        }

        @Test
        void aGuestAddressNeedsTypePciAndASlotInRange() {
            assertThat(DomainDocument.guestAddress("pci", "0x0000", "0x01", "0x02", "0x3")).contains(PciAddress.parse("0000:01:02.3"));
            assertThat(DomainDocument.guestAddress("pci", null, null, "0x02", null)).contains(PciAddress.parse("0000:00:02.0"));
            assertThat(DomainDocument.guestAddress("pci", "0", "0", null, "0")).isEqualTo(Optional.empty());
            assertThat(DomainDocument.guestAddress("drive", "0", "0", "1", "0")).isEqualTo(Optional.empty());
            assertThat(DomainDocument.guestAddress(null, "0", "0", "1", "0")).isEqualTo(Optional.empty());
            assertThat(DomainDocument.guestAddress("pci", "0", "0", "0x20", "0")).isEqualTo(Optional.empty());
            assertThat(DomainDocument.guestAddress("pci", "0", "0", "0x1", "8")).isEqualTo(Optional.empty());
        }
    }

    @Nested
    class BadInput {

        private static void assertRefused(String text, String message) {
            assertThatThrownBy(() -> parse(text)).isInstanceOf(DomainXmlException.class).hasMessage(message);
        }

        @Test
        void aDocumentThatIsNotWellFormedIsRefusedSayingWhere() {
            assertRefused(HEAD + "<devices></domain>",
                    "domain XML is not well-formed: Unexpected close tag </domain>; expected </devices>. at [row,col {unknown-source}]: [1,127]");
        }

        @Test
        void anEmptyDocumentIsRefused() {
            assertThatThrownBy(() -> parse("")).isInstanceOf(DomainXmlException.class).hasMessageStartingWith("domain XML is not well-formed: ");
        }

        @Test
        void anotherRootElementIsRefusedNamingIt() {
            assertRefused("<network><name>default</name></network>", "not a libvirt domain document: the root element is <network>, expected <domain>");
        }

        @Test
        void aDomainInAnotherNamespaceIsRefusedNamingIt() {
            assertRefused("<domain xmlns='urn:other'/>", "not a libvirt domain document: the root element is <{urn:other}domain>, expected <domain>");
        }

        @Test
        void twoDevicesElementsAreRefused() {
            assertRefused(HEAD + "<devices/><devices/></domain>", "domain XML has more than one <devices> element");
        }

        @Test
        void aDoctypeIsRefusedBeforeAnythingInItIsExpanded() {
            assertRefused("<!DOCTYPE domain [<!ENTITY x 'y'>]><domain>&x;</domain>",
                    "domain XML has a DOCTYPE: DTDs and entity declarations are refused, nothing in them is expanded");
        }

        @Test
        void aHostdevThatCannotBeReadIsRefusedNamingItsLine() {
            assertRefused(HEAD + "<devices>\n<disk type='file'/>\n<hostdev type='pci'><source></hostdev>\n</devices></domain>",
                    "cannot read the <hostdev> at line 3: Unexpected close tag </hostdev>; expected </source>. at [row,col {unknown-source}]: [3,37]");
        }
    }
}
