package io.vfiodp.libvirt;

/**
 * How a domain document lays out its markup, so that added elements look like they were
 * always there: its line end ({@code \n} or {@code \r\n}), the indentation of
 * {@code <devices>} and of its children, the indentation step; or no line breaks at all for a
 * document written on one line.
 */
record TextStyle(boolean pretty, String newline, String devicesIndent, String childIndent, String unit) {

    static TextStyle of(DomainDocument doc) {
        String text = doc.text();
        boolean pretty = text.indexOf('\n') >= 0;
        String newline = text.contains("\r\n") ? "\r\n" : "\n";
        if (!pretty) return new TextStyle(false, newline, "", "", "");
        String devicesIndent = switch (doc.devices()) {
            case DomainDocument.DevicesLocation.Open o -> lineIndent(text, o.startTagStart());
            case DomainDocument.DevicesLocation.SelfClosing s -> lineIndent(text, s.start());
            case DomainDocument.DevicesLocation.Absent a -> doc.firstDomainChildStart() < 0 ? null : lineIndent(text, doc.firstDomainChildStart());
        };
        String childIndent = doc.firstDeviceStart() < 0 ? null : lineIndent(text, doc.firstDeviceStart());
        if (devicesIndent == null) devicesIndent = "  ";
        String unit;
        if (childIndent != null && childIndent.startsWith(devicesIndent) && childIndent.length() > devicesIndent.length()) {
            unit = childIndent.substring(devicesIndent.length());
        } else if (!devicesIndent.isEmpty()) {
            unit = devicesIndent;
        } else {
            unit = "  ";
        }
        if (childIndent == null) childIndent = devicesIndent + unit;
        return new TextStyle(true, newline, devicesIndent, childIndent, unit);
    }

    /** A line break followed by {@code indent}; nothing for a one-line document. */
    String lineBreak(String indent) {
        return pretty ? newline + indent : "";
    }

    /** A hostdev element whose first line starts at {@code indent}. */
    String element(HostdevCodec codec, HostDev h, String indent) {
        if (!pretty) return codec.write(h, "");
        return String.join(newline + indent, codec.write(h, unit).split("\\R"));
    }

    /**
     * The spaces and tabs before {@code offset} on its line, or null when something else comes
     * first on that line.
     */
    static String lineIndent(String text, int offset) {
        int i = offset - 1;
        while (i >= 0 && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) i--;
        if (i >= 0 && text.charAt(i) != '\n') return null;
        return text.substring(i + 1, offset);
    }

    /** Moves back from {@code offset} over whitespace, not before {@code floor}. */
    static int beforeTrailingSpace(String text, int offset, int floor) {
        int i = offset;
        while (i > floor && Character.isWhitespace(text.charAt(i - 1))) i--;
        return i;
    }
}
