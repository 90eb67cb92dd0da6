package io.vfiodp.holders;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Who holds each device this node offers, at one moment: immutable, read by anyone, made by
 * {@link Attribution} alone.
 *
 * @param entries           every offered device once, by ID
 * @param unknownHolders    why PodResources could not be read (every device is then {@link Holding.Unknown}); empty when it answered
 * @param unknownVmis       why the pods' VMIs are not known (no API, or it cannot be read); empty when the API answered
 */
public record HolderView(List<Entry> entries, Optional<String> unknownHolders, Optional<String> unknownVmis) {

    /** Before anything was read. */
    public static final HolderView EMPTY = new HolderView(List.of(), Optional.of("not read yet"), Optional.of("not read yet"));

    public HolderView {
        entries = entries.stream().sorted(Comparator.comparing(e -> e.device().id())).toList();
        Objects.requireNonNull(unknownHolders, "unknownHolders");
        Objects.requireNonNull(unknownVmis, "unknownVmis");
    }

    /** One device and who holds it. */
    public record Entry(OfferedDevice device, Holding holding) {
        public Entry {
            Objects.requireNonNull(device, "device");
            Objects.requireNonNull(holding, "holding");
        }
    }

    /** Who holds device {@code id}; empty when this node does not offer it. */
    public Optional<Holding> holding(String id) {
        for (Entry e : entries) if (e.device().id().equals(id)) return Optional.of(e.holding());
        return Optional.empty();
    }
}
