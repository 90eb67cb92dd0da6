package io.vfiodp.libvirt;

import io.vfiodp.host.PciAddress;
import jakarta.xml.bind.JAXBException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import org.codehaus.stax2.LocationInfo;
import org.codehaus.stax2.XMLStreamReader2;

/**
 * A libvirt domain document as text plus what the merge needs to know about it: where
 * {@code <devices>} starts and ends, each {@code <hostdev>} directly in it (read into the
 * JAXB model, with its exact character span), the guest PCI addresses and aliases already
 * taken. Offsets are character indices into {@link #text()}, so edits can be spliced in
 * without re-serialising anything else.
 */
final class DomainDocument {

    /** A {@code <hostdev>} child of {@code <devices>}: {@code text.substring(start, end)} is exactly its markup. */
    record ExistingHostdev(int start, int end, HostDev model) {}

    /** Where new devices go. */
    sealed interface DevicesLocation {
        /** {@code <devices>…</devices>}. */
        record Open(int startTagStart, int startTagEnd, int endTagStart) implements DevicesLocation {}

        /** {@code <devices/>}, spanning {@code [start, end)}. */
        record SelfClosing(int start, int end) implements DevicesLocation {}

        /** No {@code <devices>}: one must be opened before {@code </domain>}. */
        record Absent(int domainEndTagStart) implements DevicesLocation {}
    }

    private final String text;
    private final DevicesLocation devices;
    private final List<ExistingHostdev> hostdevs;
    private final Map<PciAddress, String> guestPciAddresses;
    private final Set<String> aliases;
    private final int firstDeviceStart;
    private final int firstDomainChildStart;

    private DomainDocument(String text, DevicesLocation devices, List<ExistingHostdev> hostdevs,
                           Map<PciAddress, String> guestPciAddresses, Set<String> aliases,
                           int firstDeviceStart, int firstDomainChildStart) {
        this.text = text;
        this.devices = Objects.requireNonNull(devices, "devices");
        this.hostdevs = List.copyOf(hostdevs);
        this.guestPciAddresses = Map.copyOf(guestPciAddresses);
        this.aliases = Set.copyOf(aliases);
        this.firstDeviceStart = firstDeviceStart;
        this.firstDomainChildStart = firstDomainChildStart;
    }

    String text() {
        return text;
    }

    DevicesLocation devices() {
        return devices;
    }

    List<ExistingHostdev> hostdevs() {
        return hostdevs;
    }

    /** Explicit guest PCI addresses of every device (hostdevs included), with a description of the owner. */
    Map<PciAddress, String> guestPciAddresses() {
        return guestPciAddresses;
    }

    Set<String> aliases() {
        return aliases;
    }

    /** Start offset of the first element inside {@code <devices>}, or -1. */
    int firstDeviceStart() {
        return firstDeviceStart;
    }

    /** Start offset of the first element inside {@code <domain>}, or -1. */
    int firstDomainChildStart() {
        return firstDomainChildStart;
    }

    static DomainDocument parse(String text, SecureXml xml, HostdevCodec codec) throws DomainXmlException {
        try {
            return new Scan(text, xml.reader(text), codec).run();
        } catch (XMLStreamException e) {
            throw new DomainXmlException("domain XML is not well-formed: " + oneLine(e.getMessage()), e);
        }
    }

    private static String oneLine(String message) {
        return message == null ? "(no detail)" : message.replaceAll("\\s*\\R\\s*", " ").strip();
    }

    /** One pass over the document; Woodstox gives exact offsets per event. */
    private static final class Scan {
        private final String text;
        private final XMLStreamReader2 r;
        private final HostdevCodec codec;
        private final List<ExistingHostdev> hostdevs = new ArrayList<>();
        private final Map<PciAddress, String> guest = new LinkedHashMap<>();
        private final Set<String> aliases = new LinkedHashSet<>();
        private int depth;
        private boolean inDevices;
        private boolean devicesSeen;
        private String currentDevice = "";
        private int devicesStartTagStart = -1;
        private int devicesStartTagEnd = -1;
        private DevicesLocation devices;
        private int firstDeviceStart = -1;
        private int firstDomainChildStart = -1;

        Scan(String text, XMLStreamReader2 reader, HostdevCodec codec) {
            this.text = text;
            this.r = reader;
            this.codec = codec;
        }

        DomainDocument run() throws XMLStreamException, DomainXmlException {
            int event = r.getEventType();
            while (event != XMLStreamConstants.END_DOCUMENT) {
                switch (event) {
                    case XMLStreamConstants.DTD -> throw new DomainXmlException(
                            "domain XML has a DOCTYPE: DTDs and entity declarations are refused, nothing in them is expanded");
                    case XMLStreamConstants.START_ELEMENT -> {
                        if (startElement()) {
                            event = r.getEventType();
                            continue;
                        }
                    }
                    case XMLStreamConstants.END_ELEMENT -> endElement();
                    default -> { }
                }
                event = r.next();
            }
            return new DomainDocument(text, devices, hostdevs, guest, aliases, firstDeviceStart, firstDomainChildStart);
        }

        /** Returns true when it consumed the element (a hostdev), leaving the reader on the next event. */
        private boolean startElement() throws XMLStreamException, DomainXmlException {
            depth++;
            LocationInfo loc = r.getLocationInfo();
            int start = (int) loc.getStartingCharOffset();
            int end = (int) loc.getEndingCharOffset();
            boolean plain = r.getNamespaceURI() == null || r.getNamespaceURI().isEmpty();
            String name = r.getLocalName();
            if (depth == 1) {
                if (!plain || !name.equals("domain")) {
                    throw new DomainXmlException("not a libvirt domain document: the root element is <" + r.getName() + ">, expected <domain>");
                }
            } else if (depth == 2) {
                if (firstDomainChildStart < 0) firstDomainChildStart = start;
                if (plain && name.equals("devices")) {
                    if (devicesSeen) throw new DomainXmlException("domain XML has more than one <devices> element");
                    devicesSeen = true;
                    inDevices = !r.isEmptyElement();
                    devicesStartTagStart = start;
                    devicesStartTagEnd = end;
                }
            } else if (depth == 3 && inDevices) {
                if (firstDeviceStart < 0) firstDeviceStart = start;
                currentDevice = name;
                if (plain && name.equals("hostdev")) {
                    readHostdev(start);
                    return true;
                }
            } else if (depth == 4 && inDevices && plain) {
                if (name.equals("address")) {
                    guestAddress(attribute("type"), attribute("domain"), attribute("bus"), attribute("slot"), attribute("function"))
                            .ifPresent(a -> guest.putIfAbsent(a, "<" + currentDevice + ">"));
                } else if (name.equals("alias")) {
                    String alias = attribute("name");
                    if (alias != null) aliases.add(alias);
                }
            }
            return false;
        }

        private void readHostdev(int start) throws XMLStreamException, DomainXmlException {
            int line = r.getLocation().getLineNumber();
            HostDev model;
            try {
                model = codec.read(r);
            } catch (JAXBException e) {
                Throwable cause = e.getLinkedException() != null ? e.getLinkedException() : e;
                throw new DomainXmlException("cannot read the <hostdev> at line " + line + ": " + oneLine(String.valueOf(cause.getMessage())), e);
            }
            int end = (int) r.getLocationInfo().getStartingCharOffset();
            depth--;
            hostdevs.add(new ExistingHostdev(start, end, model));
            if (model.alias != null && model.alias.name != null) aliases.add(model.alias.name);
            if (model.address != null) {
                DeviceAddress a = model.address;
                String owner = "<hostdev>" + (model.alias != null && model.alias.name != null ? " " + model.alias.name : "");
                guestAddress(a.type, a.domain, a.bus, a.slot, a.function).ifPresent(g -> guest.putIfAbsent(g, owner));
            }
        }

        private void endElement() {
            int start = (int) r.getLocationInfo().getStartingCharOffset();
            if (depth == 2 && r.getLocalName().equals("devices") && devicesSeen && devices == null) {
                if (inDevices) {
                    devices = new DevicesLocation.Open(devicesStartTagStart, devicesStartTagEnd, start);
                    inDevices = false;
                } else {
                    devices = new DevicesLocation.SelfClosing(devicesStartTagStart, devicesStartTagEnd);
                }
            } else if (depth == 1 && devices == null) {
                devices = new DevicesLocation.Absent(start);
            }
            depth--;
        }

        private String attribute(String local) {
            return r.getAttributeValue(null, local);
        }
    }

    /**
     * A guest address that pins a PCI slot. libvirt fills in a missing domain, bus or function
     * with 0, but an address without a slot only asks libvirt to choose, so it pins nothing.
     */
    static Optional<PciAddress> guestAddress(String type, String domain, String bus, String slot, String function) {
        if (!"pci".equals(type) || slot == null) return Optional.empty();
        try {
            return Optional.of(new PciAddress(number(domain), number(bus), number(slot), number(function)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /**
     * libvirt reads these attributes with strtol base 0: {@code 0x} is hex, a leading {@code 0}
     * octal, anything else decimal; absent means 0.
     */
    static int number(String value) {
        if (value == null) return 0;
        String v = value.strip();
        if (v.startsWith("0x") || v.startsWith("0X")) return Integer.parseInt(v.substring(2), 16);
        if (v.length() > 1 && v.startsWith("0")) return Integer.parseInt(v.substring(1), 8);
        return Integer.parseInt(v);
    }
}
