package io.vfiodp.libvirt;

import com.ctc.wstx.api.WstxInputProperties;
import com.ctc.wstx.stax.WstxInputFactory;
import java.io.StringReader;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamException;
import org.codehaus.stax2.XMLStreamReader2;

/**
 * The only way this package reads XML. A domain document comes from KubeVirt or a user and
 * has no business declaring a DTD: DTD processing is off, so no entity (internal or
 * external) can ever expand, and a DOCTYPE is refused by the reader of each document (see
 * {@link DomainDocument}) before anything behind it is looked at. External resolution is
 * refused as a second line.
 */
final class SecureXml {

    private final XMLInputFactory factory;

    SecureXml() {
        WstxInputFactory f = new WstxInputFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_COALESCING, false);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        f.setProperty(WstxInputProperties.P_MAX_ELEMENT_DEPTH, 256);
        f.setXMLResolver((publicId, systemId, baseUri, namespace) -> {
            throw new XMLStreamException("external reference refused: " + systemId);
        });
        this.factory = f;
    }

    /** A reader over {@code text}; Woodstox's readers report exact character offsets per event. */
    XMLStreamReader2 reader(String text) throws XMLStreamException {
        return (XMLStreamReader2) factory.createXMLStreamReader(new StringReader(text));
    }
}
