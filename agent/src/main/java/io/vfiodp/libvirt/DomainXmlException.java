package io.vfiodp.libvirt;

/** A domain document we refuse to read: not well-formed, not a domain, or hostile (DOCTYPE, entities). */
final class DomainXmlException extends Exception {

    DomainXmlException(String message) {
        super(message);
    }

    DomainXmlException(String message, Throwable cause) {
        super(message, cause);
    }
}
