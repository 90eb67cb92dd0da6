package io.vfiodp.libvirt;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.namespace.QName;

/** {@code <rom bar='on|off' file='…'/>} of a PCI hostdev. */
@XmlAccessorType(XmlAccessType.FIELD)
final class HostDevRom {

    @XmlAttribute String bar;
    @XmlAttribute String file;
    @XmlAnyAttribute Map<QName, String> otherAttributes = new LinkedHashMap<>();
}
