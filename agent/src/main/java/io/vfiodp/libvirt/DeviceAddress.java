package io.vfiodp.libvirt;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.namespace.QName;

/**
 * libvirt's {@code <address>}: a host PCI address or mdev UUID inside {@code <source>}, or a
 * guest address ({@code type='pci'}, optionally {@code multifunction='on'}) directly in the
 * device.
 */
@XmlAccessorType(XmlAccessType.FIELD)
final class DeviceAddress {

    @XmlAttribute String type;
    @XmlAttribute String domain;
    @XmlAttribute String bus;
    @XmlAttribute String slot;
    @XmlAttribute String function;
    @XmlAttribute String multifunction;
    @XmlAttribute String uuid;
    @XmlAnyAttribute Map<QName, String> otherAttributes = new LinkedHashMap<>();
}
