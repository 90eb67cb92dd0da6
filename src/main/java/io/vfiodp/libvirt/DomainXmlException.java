package io.vfiodp.libvirt;

/** A domain document we refuse to read: not well-formed, not a domain, or hostile (DOCTYPE, entities). */
public final class DomainXmlException extends Exception {

    public DomainXmlException(String message) {
        super(message);
    }

    public DomainXmlException(String message, Throwable cause) {
        super(message, cause);
    }
}
