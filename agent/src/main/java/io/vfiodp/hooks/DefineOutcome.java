package io.vfiodp.hooks;

import java.util.List;

/** What the hook did with one domain definition. */
public sealed interface DefineOutcome {

    /** Hostdevs were added or given guest addresses. */
    record Changed(byte[] domainXml, List<String> added, List<String> updated) implements DefineOutcome {
        public Changed {
            added = List.copyOf(added);
            updated = List.copyOf(updated);
        }
    }

    /** The domain goes back as it came (the caller still holds it), for the reason given. */
    record Unchanged(String reason) implements DefineOutcome {}

    /** The definition must fail: defining the VM without its devices would be worse. */
    record Failed(String message) implements DefineOutcome {}
}
