package io.vfiodp.kubevirt;

import io.vfiodp.kubevirt.model.KubeVirt;
import io.vfiodp.kubevirt.model.kubevirtspec.Configuration;
import io.vfiodp.kubevirt.model.kubevirtspec.configuration.PermittedHostDevices;
import io.vfiodp.kubevirt.model.kubevirtspec.configuration.permittedhostdevices.MediatedDevices;
import io.vfiodp.kubevirt.model.kubevirtspec.configuration.permittedhostdevices.PciHostDevices;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Turns a KubeVirt CR into the configuration the policy reads. Entries are passed on as written
 * (in order, with their index kept by position): the policy validates them and explains what it
 * skips, so a wrong entry here never hides the valid ones.
 */
final class KubeVirtCrConverter {

    private KubeVirtCrConverter() {}

    static KubeVirtConfig.FromCr convert(KubeVirt kv, Map<String, String> nodeLabels) {
        CrRef ref = ActiveKubeVirt.ref(kv);
        Configuration conf = kv.getSpec() == null ? null : kv.getSpec().getConfiguration();
        if (conf == null) return new KubeVirtConfig.FromCr(ref, Optional.empty(), DesiredMdevTypes.NONE);
        return new KubeVirtConfig.FromCr(ref,
                Optional.ofNullable(conf.getPermittedHostDevices()).map(KubeVirtCrConverter::permitted),
                MdevTypesForNode.resolve(conf.getMediatedDevicesConfiguration(), nodeLabels));
    }

    static PermittedDevices permitted(PermittedHostDevices p) {
        List<PermittedDevices.Pci> pci = new ArrayList<>();
        for (PciHostDevices d : orEmpty(p.getPciHostDevices())) {
            if (d == null) d = new PciHostDevices();
            pci.add(new PermittedDevices.Pci(text(d.getPciVendorSelector()), text(d.getResourceName()),
                    Boolean.TRUE.equals(d.getExternalResourceProvider())));
        }
        List<PermittedDevices.Mdev> mdev = new ArrayList<>();
        for (MediatedDevices d : orEmpty(p.getMediatedDevices())) {
            if (d == null) d = new MediatedDevices();
            mdev.add(new PermittedDevices.Mdev(text(d.getMdevNameSelector()), text(d.getResourceName()),
                    Boolean.TRUE.equals(d.getExternalResourceProvider())));
        }
        return new PermittedDevices(pci, mdev);
    }

    // a null item (a bare "-" in YAML) stays in place: the policy names entries by index
    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }
}
