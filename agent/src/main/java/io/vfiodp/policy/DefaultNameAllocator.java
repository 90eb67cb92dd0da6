package io.vfiodp.policy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Gives every model (or vGPU/mdev type) that default mode exposes one valid resource name, and
 * never the same name to two of them. Only the models present in the snapshot take part: a name
 * gets a suffix only on a host where two different models really meet.
 */
final class DefaultNameAllocator {

    /**
     * One thing that wants a generated name.
     *
     * @param identity      what is "the same model": {@code pci:10de:1eb8}, {@code mdev:GRID T4-1Q}, …
     * @param rawNamePart   the name part per the naming rule, before repair
     * @param discriminator appended as {@code _<discriminator>} when two identities meet on one name
     * @param fallback      the name part to use when nothing of {@code rawNamePart} survives repair
     * @param origin        how messages describe it
     */
    record Request(String identity, String rawNamePart, String discriminator, String fallback, String origin) {}

    /** The name given to one identity, with notes on what was changed and why. */
    record Allocation(ResourceName name, List<String> notes) {
        Allocation {
            notes = List.copyOf(notes);
        }
    }

    private DefaultNameAllocator() {}

    static Map<String, Allocation> allocate(Collection<Request> requests) {
        Map<String, Request> byIdentity = new TreeMap<>();
        for (Request r : requests) byIdentity.putIfAbsent(r.identity(), r);

        Map<String, String> part = new TreeMap<>();
        Map<String, List<String>> notes = new TreeMap<>();
        for (Request r : byIdentity.values()) {
            List<String> n = new ArrayList<>();
            notes.put(r.identity(), n);
            part.put(r.identity(), repaired(r.rawNamePart(), r.fallback(), n));
        }

        // two different models on one name: both get their discriminator, so neither silently
        // takes over a name the other had elsewhere
        for (List<String> clash : clashes(part)) {
            boolean sameName = clash.stream().map(part::get).distinct().count() == 1;
            for (String identity : clash) {
                Request r = byIdentity.get(identity);
                String others = clash.stream().filter(i -> !i.equals(identity)).map(i -> byIdentity.get(i).origin())
                        .collect(Collectors.joining(", "));
                String before = part.get(identity);
                String after = repaired(before + "_" + r.discriminator(), r.fallback(), new ArrayList<>());
                notes.get(identity).add("'" + DefaultNames.DOMAIN + "/" + before + "' is also "
                        + (sameName ? "the name of " : "read by virt-launcher from the variable of ") + others
                        + "; added _" + r.discriminator() + " to keep them apart");
                part.put(identity, after);
            }
        }
        // a suffixed name may meet a third model's plain name: a hash of the identity settles it
        for (List<String> clash : clashes(part)) {
            for (String identity : clash) {
                String before = part.get(identity);
                String after = repaired(before + "_" + DefaultNames.shortHash(identity), identity, new ArrayList<>());
                notes.get(identity).add("'" + DefaultNames.DOMAIN + "/" + before + "' is still taken; added a hash of "
                        + byIdentity.get(identity).origin() + " to keep it apart");
                part.put(identity, after);
            }
        }

        Map<String, Allocation> out = new TreeMap<>();
        for (String identity : byIdentity.keySet()) {
            out.put(identity, new Allocation(ResourceName.of(DefaultNames.DOMAIN + "/" + part.get(identity)), notes.get(identity)));
        }
        return out;
    }

    private static String repaired(String rawPart, String fallback, List<String> notes) {
        Optional<DefaultNames.Repaired> r = DefaultNames.repair(rawPart);
        if (r.isEmpty()) {
            DefaultNames.Repaired f = DefaultNames.repair(fallback).orElseThrow(() ->
                    new IllegalArgumentException("fallback name part '" + fallback + "' has no letter or digit"));
            notes.add("'" + rawPart + "' leaves no valid resource name; using '" + f.namePart() + "'");
            return f.namePart();
        }
        r.get().change().ifPresent(notes::add);
        return r.get().namePart();
    }

    /**
     * Identities whose names virt-launcher cannot tell apart: the same name, or names that
     * differ only in case or in '.' against '_' (KubeVirt's variable for a resource upper-cases
     * it and turns '.' into '_').
     */
    private static List<List<String>> clashes(Map<String, String> part) {
        Map<String, List<String>> byVariable = new TreeMap<>();
        part.forEach((identity, name) -> byVariable.computeIfAbsent(
                name.toUpperCase(Locale.ROOT).replace('.', '_'), k -> new ArrayList<>()).add(identity));
        return byVariable.values().stream().filter(l -> l.size() > 1).toList();
    }
}
