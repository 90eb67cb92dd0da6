package io.vfiodp.libvirt;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAttribute;

/** {@code <alias name='ua-…'/>}: libvirt keeps user aliases only when they start with {@code ua-}. */
@XmlAccessorType(XmlAccessType.FIELD)
final class DeviceAlias {

    @XmlAttribute String name;
}
