package io.vfiodp.policy.config;

import java.util.ArrayList;
import java.util.List;

/**
 * KubeVirt's {@code spec.configuration.permittedHostDevices}, from the CR or from a local file
 * with the same schema. Entry order is kept: it decides which of two entries with the same
 * selector wins (the later one). KubeVirt's {@code usb[]} is not ours and not modelled. A missing list is empty; a missing ({@code null}) list item becomes an
 * entry with empty fields, which the policy reports as malformed.
 */
public record PermittedHostDevices(List<PciHostDevice> pciHostDevices, List<MediatedHostDevice> mediatedDevices) {

    public static final PermittedHostDevices NONE = new PermittedHostDevices(List.of(), List.of());

    public PermittedHostDevices {
        pciHostDevices = copy(pciHostDevices, new PciHostDevice(null, null, false));
        mediatedDevices = copy(mediatedDevices, new MediatedHostDevice(null, null, false));
    }

    private static <T> List<T> copy(List<T> in, T empty) {
        if (in == null) return List.of();
        List<T> out = new ArrayList<>(in.size());
        for (T t : in) out.add(t == null ? empty : t);
        return List.copyOf(out);
    }
}
