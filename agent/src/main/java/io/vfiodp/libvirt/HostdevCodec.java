package io.vfiodp.libvirt;

import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.JAXBElement;
import jakarta.xml.bind.JAXBException;
import jakarta.xml.bind.Marshaller;
import jakarta.xml.bind.Unmarshaller;
import java.io.StringWriter;
import javax.xml.stream.XMLStreamReader;

/**
 * JAXB for {@link HostDev}. Building a JAXB context costs tens of milliseconds, so a codec is
 * made once and shared; it is thread-safe because marshallers are made per call.
 */
final class HostdevCodec {

    private static final String INDENT_PROPERTY = "org.glassfish.jaxb.indentString";

    private final JAXBContext context;

    HostdevCodec() {
        try {
            context = JAXBContext.newInstance(HostDev.class);
        } catch (JAXBException e) {
            throw new IllegalStateException("JAXB cannot bind the hostdev model: " + e, e);
        }
    }

    /**
     * One {@code <hostdev>} element, no XML declaration. With a non-empty {@code indentUnit}
     * children are indented by it and lines end in {@code \n}; with an empty one the element is
     * written on one line.
     */
    String write(HostDev hostdev, String indentUnit) {
        try {
            Marshaller m = context.createMarshaller();
            m.setProperty(Marshaller.JAXB_FRAGMENT, true);
            m.setProperty(Marshaller.JAXB_ENCODING, "UTF-8");
            if (!indentUnit.isEmpty()) {
                m.setProperty(Marshaller.JAXB_FORMATTED_OUTPUT, true);
                m.setProperty(INDENT_PROPERTY, indentUnit);
            }
            StringWriter out = new StringWriter();
            m.marshal(hostdev, out);
            return out.toString().strip();
        } catch (JAXBException e) {
            throw new IllegalStateException("cannot write hostdev: " + e, e);
        }
    }

    /**
     * Reads the {@code <hostdev>} the reader stands on; afterwards the reader stands on the
     * event after its end tag (JAXB's contract for StAX sources).
     */
    HostDev read(XMLStreamReader reader) throws JAXBException {
        Unmarshaller u = context.createUnmarshaller();
        JAXBElement<HostDev> element = u.unmarshal(reader, HostDev.class);
        return element.getValue();
    }
}
