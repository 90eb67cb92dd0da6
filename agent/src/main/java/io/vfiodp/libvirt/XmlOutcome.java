package io.vfiodp.libvirt;

import java.util.List;

/** Hostdev XML written (standalone or merged into a domain), or refused with every reason. */
public sealed interface XmlOutcome {

    /**
     * @param xml     the hostdev elements, or the whole domain
     * @param added   aliases of hostdevs added
     * @param updated aliases of hostdevs already in the domain that got a guest address for their companions
     */
    record Written(String xml, List<String> added, List<String> updated) implements XmlOutcome {
        public Written {
            added = List.copyOf(added);
            updated = List.copyOf(updated);
        }

        public boolean changed() {
            return !added.isEmpty() || !updated.isEmpty();
        }
    }

    record Refused(List<String> problems) implements XmlOutcome {
        public Refused {
            problems = List.copyOf(problems);
            if (problems.isEmpty()) throw new IllegalArgumentException("a refusal needs a reason");
        }

        public String message() {
            return String.join("\n", problems);
        }
    }
}
