package io.vfiodp.vgpu;

import io.vfiodp.host.PciAddress;

import java.util.Collections;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The vGPUs this plugin made: mdev UUIDs it created and SR-IOV VFs whose type it set. Only these
 * are ever removed or cleared; everything else on the host belongs to someone else.
 */
public record OwnedDevices(SortedSet<String> mdevs, SortedSet<PciAddress> vfs) {

    public static final OwnedDevices NONE = new OwnedDevices(new TreeSet<>(), new TreeSet<>());

    public OwnedDevices {
        mdevs = Collections.unmodifiableSortedSet(new TreeSet<>(mdevs));
        vfs = Collections.unmodifiableSortedSet(new TreeSet<>(vfs));
    }

    public OwnedDevices withMdev(String uuid) {
        TreeSet<String> m = new TreeSet<>(mdevs);
        m.add(uuid);
        return new OwnedDevices(m, vfs);
    }

    public OwnedDevices withoutMdev(String uuid) {
        TreeSet<String> m = new TreeSet<>(mdevs);
        m.remove(uuid);
        return new OwnedDevices(m, vfs);
    }

    public OwnedDevices withVf(PciAddress vf) {
        TreeSet<PciAddress> v = new TreeSet<>(vfs);
        v.add(vf);
        return new OwnedDevices(mdevs, v);
    }

    public OwnedDevices withoutVf(PciAddress vf) {
        TreeSet<PciAddress> v = new TreeSet<>(vfs);
        v.remove(vf);
        return new OwnedDevices(mdevs, v);
    }
}
