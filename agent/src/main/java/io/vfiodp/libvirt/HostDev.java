package io.vfiodp.libvirt;

import jakarta.xml.bind.annotation.XmlAccessType;
import jakarta.xml.bind.annotation.XmlAccessorType;
import jakarta.xml.bind.annotation.XmlAnyAttribute;
import jakarta.xml.bind.annotation.XmlAnyElement;
import jakarta.xml.bind.annotation.XmlAttribute;
import jakarta.xml.bind.annotation.XmlElement;
import jakarta.xml.bind.annotation.XmlRootElement;
import jakarta.xml.bind.annotation.XmlType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.namespace.QName;
import org.w3c.dom.Element;

/**
 * libvirt's {@code <hostdev>}, the part we write and read. What we do not model (a
 * {@code <boot>}, {@code <acpi>}, {@code <teaming>}, attributes of newer libvirt versions)
 * is kept in {@link #otherElements} and {@link #otherAttributes}, so that a hostdev we
 * re-write still carries everything KubeVirt or the user put there.
 *
 * <p>JAXB binds it by field; attribute values stay text so that a read-modify-write keeps
 * their spelling ({@code 0x3b} stays {@code 0x3b}).
 */
@XmlRootElement(name = "hostdev")
@XmlAccessorType(XmlAccessType.FIELD)
@XmlType(propOrder = {"driver", "source", "alias", "rom", "address", "otherElements"})
final class HostDev {

    @XmlAttribute String mode;
    @XmlAttribute String type;
    @XmlAttribute String managed;
    @XmlAttribute String model;
    @XmlAttribute String display;
    @XmlAttribute String ramfb;
    @XmlAnyAttribute Map<QName, String> otherAttributes = new LinkedHashMap<>();

    @XmlElement HostDevDriver driver;
    @XmlElement HostDevSource source;
    @XmlElement DeviceAlias alias;
    @XmlElement HostDevRom rom;
    /** The guest address; the host address lives in {@link #source}. */
    @XmlElement DeviceAddress address;
    @XmlAnyElement List<Element> otherElements = new ArrayList<>();
}
