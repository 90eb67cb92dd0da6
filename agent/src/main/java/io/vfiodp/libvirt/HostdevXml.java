package io.vfiodp.libvirt;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes planned hostdevs as libvirt XML: on their own, or merged into a domain document.
 *
 * <p>A merge edits the document as text: new hostdevs are inserted before
 * {@code </devices>}, a hostdev that needs a guest address is replaced by its re-written
 * element (JAXB, keeping what the model does not know), and every other character stays as
 * it was: comments, quoting, attribute order, namespaces, the XML declaration. New markup
 * follows the document's own indentation and line ends.
 *
 * <p>Instances are thread-safe; make one and share it (the JAXB context is costly to build).
 */
public final class HostdevXml {

    private static final String DEFAULT_INDENT = "  ";

    private final SecureXml xml = new SecureXml();
    private final HostdevCodec codec = new HostdevCodec();

    /** The hostdev elements alone, one after another, indented by two spaces. */
    public XmlOutcome elements(List<PlannedHostdev> plan) {
        return switch (HostdevPlacement.place(plan, List.of(), Map.of(), Set.of())) {
            case HostdevPlacement.Blocked b -> new XmlOutcome.Refused(b.problems());
            case HostdevPlacement.Placed p -> {
                StringBuilder out = new StringBuilder();
                for (HostDev h : p.additions()) out.append(codec.write(h, DEFAULT_INDENT)).append('\n');
                yield new XmlOutcome.Written(out.toString(), p.added(), p.updated());
            }
        };
    }

    /**
     * Same as {@link #merge(String, List)} for a document as bytes (a hook gets bytes); it must
     * be UTF-8, which is what KubeVirt and libvirt write.
     */
    public XmlOutcome merge(byte[] domainXml, List<PlannedHostdev> plan) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(domainXml))
                    .toString();
            return merge(text, plan);
        } catch (CharacterCodingException e) {
            return new XmlOutcome.Refused(List.of("domain XML is not valid UTF-8"));
        }
    }

    /** {@code domainXml} with the plan merged in; unchanged text when everything is already there. */
    public XmlOutcome merge(String domainXml, List<PlannedHostdev> plan) {
        DomainDocument doc;
        try {
            doc = DomainDocument.parse(domainXml, xml, codec);
        } catch (DomainXmlException e) {
            return new XmlOutcome.Refused(List.of(e.getMessage()));
        }
        List<HostDev> existing = doc.hostdevs().stream().map(DomainDocument.ExistingHostdev::model).toList();
        return switch (HostdevPlacement.place(plan, existing, doc.guestPciAddresses(), doc.aliases())) {
            case HostdevPlacement.Blocked b -> new XmlOutcome.Refused(b.problems());
            case HostdevPlacement.Placed p -> new XmlOutcome.Written(splice(doc, p), p.added(), p.updated());
        };
    }

    private String splice(DomainDocument doc, HostdevPlacement.Placed placed) {
        String text = doc.text();
        if (placed.additions().isEmpty() && placed.changed().isEmpty()) return text;
        TextStyle style = TextStyle.of(doc);
        StringBuilder out = new StringBuilder(text.length() + 512 * placed.additions().size());
        int pos = 0;
        for (var change : placed.changed().entrySet()) {
            DomainDocument.ExistingHostdev h = doc.hostdevs().get(change.getKey());
            out.append(text, pos, h.start());
            String ownIndent = TextStyle.lineIndent(text, h.start());
            out.append(style.element(codec, change.getValue(), ownIndent == null ? "" : ownIndent));
            pos = h.end();
        }
        StringBuilder added = new StringBuilder();
        for (HostDev h : placed.additions()) {
            added.append(style.lineBreak(style.childIndent())).append(style.element(codec, h, style.childIndent()));
        }
        switch (doc.devices()) {
            case DomainDocument.DevicesLocation.Open open -> {
                int at = TextStyle.beforeTrailingSpace(text, open.endTagStart(), open.startTagEnd());
                out.append(text, pos, at).append(added);
                pos = at;
            }
            case DomainDocument.DevicesLocation.SelfClosing self -> {
                out.append(text, pos, self.start()).append("<devices>").append(added)
                        .append(style.lineBreak(style.devicesIndent())).append("</devices>");
                pos = self.end();
            }
            case DomainDocument.DevicesLocation.Absent absent -> {
                int at = TextStyle.beforeTrailingSpace(text, absent.domainEndTagStart(), 0);
                out.append(text, pos, at).append(style.lineBreak(style.devicesIndent())).append("<devices>").append(added)
                        .append(style.lineBreak(style.devicesIndent())).append("</devices>");
                pos = at;
            }
        }
        out.append(text, pos, text.length());
        return out.toString();
    }
}
