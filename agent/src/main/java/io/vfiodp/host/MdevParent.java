package io.vfiodp.host;

import java.util.List;

/** A PCI function that can host mediated devices, with the types it offers (sorted by id). */
public record MdevParent(PciAddress address, List<MdevType> types) {
    public MdevParent {
        types = List.copyOf(types);
    }
}
