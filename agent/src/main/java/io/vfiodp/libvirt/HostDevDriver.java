package io.vfiodp.libvirt;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAttribute;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.namespace.QName;

/** {@code <driver name='vfio'/>} (newer libvirt adds {@code iommufd='yes'}, kept as an unknown attribute). */
@XmlAccessorType(XmlAccessType.FIELD)
final class HostDevDriver {

    @XmlAttribute String name;
    @XmlAnyAttribute Map<QName, String> otherAttributes = new LinkedHashMap<>();
}
