package io.vfiodp.libvirt;

import static io.vfiodp.libvirt.LibvirtTools.assertDomainAccepted;
import static io.vfiodp.libvirt.LibvirtTools.assertHostdevsAccepted;
import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.host.PciAddress;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Every XML written here is also validated and defined by libvirt (see {@link LibvirtTools}). */
class HostdevXmlTest {

    static final HostdevXml XML = new HostdevXml();

    static String resource(String name) {
        try (InputStream in = HostdevXmlTest.class.getResourceAsStream("/libvirt/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static XmlOutcome.Written written(XmlOutcome outcome) {
        assertThat(outcome).isInstanceOf(XmlOutcome.Written.class);
        return (XmlOutcome.Written) outcome;
    }

    static List<String> refused(XmlOutcome outcome) {
        assertThat(outcome).isInstanceOf(XmlOutcome.Refused.class);
        return ((XmlOutcome.Refused) outcome).problems();
    }

    static PlannedHostdev.Pci gpu(String alias, String address, String... companions) {
        return new PlannedHostdev.Pci(alias, PciAddress.parse(address),
                java.util.Arrays.stream(companions).map(PciAddress::parse).toList(), alias + " origin");
    }

    static PlannedHostdev.Mdev vgpu(String alias, String uuid, boolean display, boolean ramfb) {
        return new PlannedHostdev.Mdev(alias, MdevUuid.parse(uuid), display, ramfb, alias + " origin");
    }

    static String pciElement(String alias, String bus, String function) {
        return "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\">\n"
                + "  <source>\n"
                + "    <address domain=\"0x0000\" bus=\"" + bus + "\" slot=\"0x00\" function=\"" + function + "\"/>\n"
                + "  </source>\n"
                + "  <alias name=\"" + alias + "\"/>\n"
                + "</hostdev>\n";
    }

    static String pciElementAt(String alias, String bus, String function, String guestSlot, boolean multifunction) {
        return "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\">\n"
                + "  <source>\n"
                + "    <address domain=\"0x0000\" bus=\"" + bus + "\" slot=\"0x00\" function=\"" + function + "\"/>\n"
                + "  </source>\n"
                + "  <alias name=\"" + alias + "\"/>\n"
                + "  <address type=\"pci\" domain=\"0x0000\" bus=\"0x00\" slot=\"" + guestSlot + "\" function=\"" + function + "\""
                + (multifunction ? " multifunction=\"on\"" : "") + "/>\n"
                + "</hostdev>\n";
    }

    @Nested
    class Elements {

        @Test
        void aPciGpuIsWrittenAsKubeVirtWritesItPlusMode() {
            String xml = written(XML.elements(List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0")))).xml();
            assertThat(xml).isEqualTo(pciElement("ua-gpu-gpu0", "0x3b", "0x0"));
            assertHostdevsAccepted(xml);
        }

        @Test
        void severalGpusAreWrittenInPlanOrder() {
            String xml = written(XML.elements(List.of(
                    gpu("ua-gpu-t1", "0000:3b:00.0"), gpu("ua-gpu-a1", "0000:af:00.0"),
                    gpu("ua-gpu-t2", "0000:3c:00.0"), gpu("ua-gpu-a2", "0000:b0:00.0")))).xml();
            assertThat(xml).isEqualTo(pciElement("ua-gpu-t1", "0x3b", "0x0") + pciElement("ua-gpu-a1", "0xaf", "0x0")
                    + pciElement("ua-gpu-t2", "0x3c", "0x0") + pciElement("ua-gpu-a2", "0xb0", "0x0"));
            assertHostdevsAccepted(xml);
        }

        @Test
        void aVgpuWithDisplayCarriesDisplayAndRamfb() {
            String xml = written(XML.elements(List.of(vgpu("ua-gpu-v0", "4b20d080-1b54-4048-85b3-a6a62d165c01", true, true)))).xml();
            assertThat(xml).isEqualTo("""
                    <hostdev mode="subsystem" type="mdev" model="vfio-pci" display="on" ramfb="on">
                      <source>
                        <address uuid="4b20d080-1b54-4048-85b3-a6a62d165c01"/>
                      </source>
                      <alias name="ua-gpu-v0"/>
                    </hostdev>
                    """);
            assertHostdevsAccepted(xml);
        }

        /** KubeVirt's hostdev.go createPCIHostDevice: Display "on", RamFB "on" on a PCI hostdev (SR-IOV vGPU VFs). */
        @Test
        void aPciGpuWithItsDisplayEnabledCarriesDisplayAndRamfb() {
            String xml = written(XML.elements(List.of(new PlannedHostdev.Pci("ua-gpu-vf0", PciAddress.parse("0000:41:00.4"), List.of(),
                    true, true, "origin")))).xml();
            assertThat(xml).isEqualTo("""
                    <hostdev mode="subsystem" type="pci" managed="no" display="on" ramfb="on">
                      <source>
                        <address domain="0x0000" bus="0x41" slot="0x00" function="0x4"/>
                      </source>
                      <alias name="ua-gpu-vf0"/>
                    </hostdev>
                    """);
            LibvirtTools.assertHostdevsAcceptedWithPciDisplay(xml);
        }

        @Test
        void aVgpuWithoutDisplayHasNeitherAttribute() {
            String xml = written(XML.elements(List.of(vgpu("ua-hostdevice-v1", "4b20d080-1b54-4048-85b3-a6a62d165c02", false, false)))).xml();
            assertThat(xml).isEqualTo("""
                    <hostdev mode="subsystem" type="mdev" model="vfio-pci">
                      <source>
                        <address uuid="4b20d080-1b54-4048-85b3-a6a62d165c02"/>
                      </source>
                      <alias name="ua-hostdevice-v1"/>
                    </hostdev>
                    """);
            assertHostdevsAccepted(xml);
        }

        @Test
        void companionsShareTheGpusGuestSlotWithTheirHostFunctionNumbers() {
            String xml = written(XML.elements(List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0", "0000:3b:00.1", "0000:3b:00.3")))).xml();
            assertThat(xml).isEqualTo(pciElementAt("ua-gpu-gpu0", "0x3b", "0x0", "0x10", true)
                    + pciElementAt("ua-gpu-gpu0-fn1", "0x3b", "0x1", "0x10", false)
                    + pciElementAt("ua-gpu-gpu0-fn3", "0x3b", "0x3", "0x10", false));
            assertHostdevsAccepted(xml);
        }

        @Test
        void eachGpuWithCompanionsGetsTheNextFreeSlotAndGpusWithoutStayUnplaced() {
            String xml = written(XML.elements(List.of(
                    gpu("ua-gpu-a", "0000:3b:00.0", "0000:3b:00.1"),
                    gpu("ua-gpu-plain", "0000:5e:00.0"),
                    gpu("ua-gpu-b", "0000:86:00.0", "0000:86:00.1")))).xml();
            assertThat(xml).isEqualTo(pciElementAt("ua-gpu-a", "0x3b", "0x0", "0x10", true)
                    + pciElementAt("ua-gpu-a-fn1", "0x3b", "0x1", "0x10", false)
                    + pciElement("ua-gpu-plain", "0x5e", "0x0")
                    + pciElementAt("ua-gpu-b", "0x86", "0x0", "0x11", true)
                    + pciElementAt("ua-gpu-b-fn1", "0x86", "0x1", "0x11", false));
            assertHostdevsAccepted(xml);
        }

        @Test
        void aGroupMateThatIsFunctionZeroOfAnotherSlotGetsItsOwnSlot() {
            String xml = written(XML.elements(List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0", "0000:3b:00.1", "0000:3c:00.0")))).xml();
            assertThat(xml).isEqualTo(pciElementAt("ua-gpu-gpu0", "0x3b", "0x0", "0x10", true)
                    + pciElementAt("ua-gpu-gpu0-fn1", "0x3b", "0x1", "0x10", false)
                    + pciElementAt("ua-gpu-gpu0-3c00-fn0", "0x3c", "0x0", "0x11", true));
            assertHostdevsAccepted(xml);
        }

        @Test
        void moreGpusWithCompanionsThanFreeSlotsAreRefused() {
            List<PlannedHostdev> plan = new java.util.ArrayList<>();
            for (int bus = 0x30; bus < 0x3b; bus++) {
                String b = String.format("%02x", bus);
                plan.add(gpu("ua-gpu-g" + b, "0000:" + b + ":00.0", "0000:" + b + ":00.1"));
            }
            assertThat(refused(XML.elements(plan))).containsExactly(
                    "ua-gpu-g3a origin: no free guest slot for ua-gpu-g3a and its companions: slots 0x10..0x19 of bus 0x00 are all in use");
        }
    }

    @Nested
    class MergeIntoAKubeVirtDomain {

        final String domain = resource("kubevirt-gpu-domain.xml");

        static final String KUBEVIRT_GPU = "\t\t<hostdev type=\"pci\" managed=\"no\">\n"
                + "\t\t\t<source writeFiltering=\"no\">\n"
                + "\t\t\t\t<address domain=\"0x0000\" bus=\"0x3b\" slot=\"0x00\" function=\"0x0\"></address>\n"
                + "\t\t\t</source>\n"
                + "\t\t\t<alias name=\"ua-gpu-gpu0\"></alias>\n"
                + "\t\t\t<boot order=\"3\"></boot>\n"
                + "\t\t\t<acpi index=\"7\"></acpi>\n"
                + "\t\t</hostdev>\n";

        static final String DEVICES_END = "\t\t</console>\n\t</devices>";

        @Test
        void newHostdevsAreInsertedBeforeTheDevicesEndAndNothingElseChanges() {
            XmlOutcome.Written w = written(XML.merge(domain, List.of(
                    gpu("ua-gpu-gpu1", "0000:86:00.0"),
                    vgpu("ua-gpu-v0", "4b20d080-1b54-4048-85b3-a6a62d165c01", true, true))));
            assertThat(w.xml()).isEqualTo(domain.replace(DEVICES_END, "\t\t</console>\n"
                    + "\t\t<hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\">\n"
                    + "\t\t\t<source>\n"
                    + "\t\t\t\t<address domain=\"0x0000\" bus=\"0x86\" slot=\"0x00\" function=\"0x0\"/>\n"
                    + "\t\t\t</source>\n"
                    + "\t\t\t<alias name=\"ua-gpu-gpu1\"/>\n"
                    + "\t\t</hostdev>\n"
                    + "\t\t<hostdev mode=\"subsystem\" type=\"mdev\" model=\"vfio-pci\" display=\"on\" ramfb=\"on\">\n"
                    + "\t\t\t<source>\n"
                    + "\t\t\t\t<address uuid=\"4b20d080-1b54-4048-85b3-a6a62d165c01\"/>\n"
                    + "\t\t\t</source>\n"
                    + "\t\t\t<alias name=\"ua-gpu-v0\"/>\n"
                    + "\t\t</hostdev>\n"
                    + "\t</devices>"));
            assertThat(w.added()).containsExactly("ua-gpu-gpu1", "ua-gpu-v0");
            assertDomainAccepted(w.xml());
        }

        @Test
        void aGpuKubeVirtAlreadyAttachedIsNotAddedAgainAndTheDocumentComesBackIdentical() {
            XmlOutcome.Written w = written(XML.merge(domain, List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0"))));
            assertThat(w.xml()).isSameAs(domain);
            assertThat(w.changed()).isFalse();
            assertDomainAccepted(w.xml());
        }

        @Test
        void companionsOfKubeVirtsGpuPlaceItOnTheFirstFreeSlotKeepingWhatTheModelDoesNotKnow() {
            XmlOutcome.Written w = written(XML.merge(domain, List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0", "0000:3b:00.1"))));
            // 0x10 (interface) and 0x11 (memballoon) are taken: the GPU goes to 0x12
            assertThat(w.xml()).isEqualTo(domain
                    .replace(KUBEVIRT_GPU, "\t\t<hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\">\n"
                            + "\t\t\t<source writeFiltering=\"no\">\n"
                            + "\t\t\t\t<address domain=\"0x0000\" bus=\"0x3b\" slot=\"0x00\" function=\"0x0\"/>\n"
                            + "\t\t\t</source>\n"
                            + "\t\t\t<alias name=\"ua-gpu-gpu0\"/>\n"
                            + "\t\t\t<address type=\"pci\" domain=\"0x0000\" bus=\"0x00\" slot=\"0x12\" function=\"0x0\" multifunction=\"on\"/>\n"
                            + "\t\t\t<boot order=\"3\"/>\n"
                            + "\t\t\t<acpi index=\"7\"/>\n"
                            + "\t\t</hostdev>\n")
                    .replace(DEVICES_END, "\t\t</console>\n"
                            + "\t\t<hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\">\n"
                            + "\t\t\t<source>\n"
                            + "\t\t\t\t<address domain=\"0x0000\" bus=\"0x3b\" slot=\"0x00\" function=\"0x1\"/>\n"
                            + "\t\t\t</source>\n"
                            + "\t\t\t<alias name=\"ua-gpu-gpu0-fn1\"/>\n"
                            + "\t\t\t<address type=\"pci\" domain=\"0x0000\" bus=\"0x00\" slot=\"0x12\" function=\"0x1\"/>\n"
                            + "\t\t</hostdev>\n"
                            + "\t</devices>"));
            assertThat(w.added()).containsExactly("ua-gpu-gpu0-fn1");
            assertThat(w.updated()).containsExactly("ua-gpu-gpu0");
            assertDomainAccepted(w.xml());
        }

        @Test
        void mergingTheSamePlanIntoItsOwnOutputChangesNothing() {
            List<PlannedHostdev> plan = List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0", "0000:3b:00.1", "0000:3b:00.2"),
                    gpu("ua-gpu-gpu1", "0000:86:00.0", "0000:86:00.1"));
            String once = written(XML.merge(domain, plan)).xml();
            XmlOutcome.Written twice = written(XML.merge(once, plan));
            assertThat(twice.xml()).isEqualTo(once);
            assertThat(twice.changed()).isFalse();
            assertDomainAccepted(once);
        }

        @Test
        void windowsLineEndsAreKeptAndUsedForNewLines() {
            String crlf = domain.replace("\n", "\r\n");
            String xml = written(XML.merge(crlf, List.of(gpu("ua-gpu-gpu1", "0000:86:00.0")))).xml();
            assertThat(xml).isEqualTo(crlf.replace("\t\t</console>\r\n\t</devices>", "\t\t</console>\r\n"
                    + "\t\t<hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\">\r\n"
                    + "\t\t\t<source>\r\n"
                    + "\t\t\t\t<address domain=\"0x0000\" bus=\"0x86\" slot=\"0x00\" function=\"0x0\"/>\r\n"
                    + "\t\t\t</source>\r\n"
                    + "\t\t\t<alias name=\"ua-gpu-gpu1\"/>\r\n"
                    + "\t\t</hostdev>\r\n"
                    + "\t</devices>"));
            assertDomainAccepted(xml);
        }

        @Test
        void aDeviceAliasAlreadyInUseIsRefused() {
            assertThat(refused(XML.merge(domain, List.of(gpu("ua-default", "0000:86:00.0")))))
                    .containsExactly("ua-default origin: alias ua-default is already used by another device of the domain");
        }
    }

    @Nested
    class MergeLayouts {

        static final String OS = "<os><type arch='x86_64' machine='pc-i440fx-7.2'>hvm</type></os>";

        static String i440fx(String devices) {
            return "<domain type='kvm'>\n  <name>t</name>\n  <memory>1048576</memory>\n  " + OS + "\n" + devices + "</domain>\n";
        }

        @Test
        void theLowestSlotFromSixteenWithNoFunctionTakenIsChosen() {
            String domain = i440fx("  <devices>\n"
                    + "    <interface type='user'><model type='virtio'/><address type='pci' domain='0x0000' bus='0x00' slot='0x10' function='0x0'/></interface>\n"
                    + "    <interface type='user'><model type='e1000'/><address type='pci' domain='0x0000' bus='0x00' slot='0x11' function='0x3'/></interface>\n"
                    + "    <interface type='user'><model type='e1000'/><address type='pci' domain='0x0000' bus='0x00' slot='0x13' function='0x0'/></interface>\n"
                    + "  </devices>\n");
            String xml = written(XML.merge(domain, List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0", "0000:3b:00.1")))).xml();
            assertThat(xml).contains("<alias name=\"ua-gpu-gpu0\"/>\n      <address type=\"pci\" domain=\"0x0000\" bus=\"0x00\" slot=\"0x12\" function=\"0x0\" multifunction=\"on\"/>")
                    .contains("<alias name=\"ua-gpu-gpu0-fn1\"/>\n      <address type=\"pci\" domain=\"0x0000\" bus=\"0x00\" slot=\"0x12\" function=\"0x1\"/>");
            assertDomainAccepted(xml);
        }

        @Test
        void aGpuWithItsOwnGuestAddressKeepsItAndGainsMultifunction() {
            String domain = i440fx("  <devices>\n"
                    + "    <hostdev mode='subsystem' type='pci' managed='no'><source><address domain='0x0000' bus='0x3b' slot='0x00' function='0x0'/></source>"
                    + "<address type='pci' domain='0x0000' bus='0x00' slot='0x05' function='0x0'/></hostdev>\n"
                    + "  </devices>\n");
            String xml = written(XML.merge(domain, List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0", "0000:3b:00.1")))).xml();
            assertThat(xml).isEqualTo(i440fx("  <devices>\n"
                    + "    <hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\">\n"
                    + "      <source>\n"
                    + "        <address domain=\"0x0000\" bus=\"0x3b\" slot=\"0x00\" function=\"0x0\"/>\n"
                    + "      </source>\n"
                    + "      <address type=\"pci\" domain=\"0x0000\" bus=\"0x00\" slot=\"0x05\" function=\"0x0\" multifunction=\"on\"/>\n"
                    + "    </hostdev>\n"
                    + "    <hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\">\n"
                    + "      <source>\n"
                    + "        <address domain=\"0x0000\" bus=\"0x3b\" slot=\"0x00\" function=\"0x1\"/>\n"
                    + "      </source>\n"
                    + "      <alias name=\"ua-gpu-gpu0-fn1\"/>\n"
                    + "      <address type=\"pci\" domain=\"0x0000\" bus=\"0x00\" slot=\"0x05\" function=\"0x1\"/>\n"
                    + "    </hostdev>\n"
                    + "  </devices>\n"));
            assertDomainAccepted(xml);
        }

        @Test
        void aCompanionWhoseGuestFunctionIsTakenIsRefusedNamingTheHolder() {
            String domain = i440fx("  <devices>\n"
                    + "    <hostdev mode='subsystem' type='pci' managed='no'><source><address domain='0x0000' bus='0x3b' slot='0x00' function='0x0'/></source>"
                    + "<address type='pci' domain='0x0000' bus='0x00' slot='0x05' function='0x0' multifunction='on'/></hostdev>\n"
                    + "    <interface type='user'><address type='pci' domain='0x0000' bus='0x00' slot='0x05' function='0x1'/></interface>\n"
                    + "  </devices>\n");
            assertThat(refused(XML.merge(domain, List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0", "0000:3b:00.1")))))
                    .containsExactly("ua-gpu-gpu0 origin: companion 0000:3b:00.1 needs guest address 0000:00:05.1, which <interface> holds");
        }

        @Test
        void aSelfClosingDevicesElementIsOpened() {
            String xml = written(XML.merge(i440fx("  <devices/>\n"), List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0")))).xml();
            assertThat(xml).isEqualTo(i440fx("  <devices>\n"
                    + "    " + pciElement("ua-gpu-gpu0", "0x3b", "0x0").replace("\n  ", "\n      ").replace("\n</hostdev>", "\n    </hostdev>")
                    + "  </devices>\n"));
            assertDomainAccepted(xml);
        }

        @Test
        void aDomainWithoutDevicesGetsThem() {
            String xml = written(XML.merge(i440fx(""), List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0")))).xml();
            assertThat(xml).isEqualTo(i440fx("  <devices>\n"
                    + "    " + pciElement("ua-gpu-gpu0", "0x3b", "0x0").replace("\n  ", "\n      ").replace("\n</hostdev>", "\n    </hostdev>")
                    + "  </devices>\n"));
            assertDomainAccepted(xml);
        }

        @Test
        void aOneLineDomainGetsOneLineHostdevs() {
            String domain = "<domain type='kvm'><name>t</name><memory>1048576</memory>" + OS + "<devices><controller type='usb' model='none'/></devices></domain>";
            String xml = written(XML.merge(domain, List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0")))).xml();
            assertThat(xml).isEqualTo("<domain type='kvm'><name>t</name><memory>1048576</memory>" + OS + "<devices><controller type='usb' model='none'/>"
                    + "<hostdev mode=\"subsystem\" type=\"pci\" managed=\"no\"><source><address domain=\"0x0000\" bus=\"0x3b\" slot=\"0x00\" function=\"0x0\"/>"
                    + "</source><alias name=\"ua-gpu-gpu0\"/></hostdev></devices></domain>");
            assertDomainAccepted(xml);
        }
    }

    @Nested
    class HostileOrBrokenDocuments {

        @Test
        void billionLaughsIsRefusedWithoutExpandingAnything() {
            String lol = """
                    <?xml version="1.0"?>
                    <!DOCTYPE domain [
                      <!ENTITY lol "lol">
                      <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
                      <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
                      <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
                      <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
                    ]>
                    <domain type="kvm"><name>&lol9;</name><devices/></domain>
                    """;
            assertThat(refused(XML.merge(lol, List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0")))))
                    .containsExactly("domain XML has a DOCTYPE: DTDs and entity declarations are refused, nothing in them is expanded");
        }

        @Test
        void anExternalEntityIsRefusedAndTheFileIsNeverRead() throws IOException {
            java.nio.file.Path secret = java.nio.file.Files.createTempFile("vfiodp-secret", ".txt");
            try {
                java.nio.file.Files.writeString(secret, "TOP-SECRET-MARKER");
                String xxe = "<?xml version=\"1.0\"?>\n<!DOCTYPE domain [<!ENTITY x SYSTEM \"" + secret.toUri() + "\">]>\n"
                        + "<domain type=\"kvm\"><name>&x;</name><devices/></domain>";
                List<String> problems = refused(XML.merge(xxe, List.of(gpu("ua-gpu-gpu0", "0000:3b:00.0"))));
                assertThat(problems).containsExactly("domain XML has a DOCTYPE: DTDs and entity declarations are refused, nothing in them is expanded");
            } finally {
                java.nio.file.Files.delete(secret);
            }
        }

        @Test
        void anUndeclaredEntityReferenceIsRefused() {
            assertThat(refused(XML.merge("<domain><name>&x;</name></domain>", List.of())))
                    .containsExactly("domain XML is not well-formed: Undeclared general entity \"x\" at [row,col {unknown-source}]: [1,17]");
        }

        @Test
        void aDocumentThatIsNotWellFormedIsRefused() {
            assertThat(refused(XML.merge("<domain><devices></domain>", List.of())))
                    .containsExactly("domain XML is not well-formed: Unexpected close tag </domain>; expected </devices>. at [row,col {unknown-source}]: [1,25]");
        }

        @Test
        void anotherRootElementIsRefused() {
            assertThat(refused(XML.merge("<network><name>x</name></network>", List.of())))
                    .containsExactly("not a libvirt domain document: the root element is <network>, expected <domain>");
        }

        @Test
        void bytesThatAreNotUtf8AreRefused() {
            byte[] latin1 = "<domain><name>caf\u00e9</name></domain>".getBytes(StandardCharsets.ISO_8859_1);
            assertThat(refused(XML.merge(latin1, List.of()))).containsExactly("domain XML is not valid UTF-8");
        }
    }
}
