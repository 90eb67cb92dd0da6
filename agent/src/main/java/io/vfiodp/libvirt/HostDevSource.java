package io.vfiodp.libvirt;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;
import org.w3c.dom.Element;

/** {@code <source>} of a hostdev: the host PCI address or the mdev UUID. */
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"address", "otherElements"})
final class HostDevSource {

    @XmlElement DeviceAddress address;
    @XmlAnyAttribute Map<QName, String> otherAttributes = new LinkedHashMap<>();
    @XmlAnyElement List<Element> otherElements = new ArrayList<>();
}
