package io.vfiodp.libvirt;

import io.vfiodp.host.PciAddress;
import java.util.List;
import java.util.Objects;

/** A hostdev the helper decided to attach, before it is written as XML. */
public sealed interface PlannedHostdev {

    String alias();

    /** Where it came from, for messages: {@code gpus[0] 'gpu0' (nvidia.com/X) via PCI_RESOURCE_NVIDIA_COM_X}. */
    String origin();

    /**
     * A PCI function passed through ({@code type='pci' managed='no'}).
     *
     * @param companions the other functions of its IOMMU group, attached with it: those of its own
     *                   slot beside it on its guest slot, those of other slots on slots of their
     *                   own; empty unless companions were asked for
     * @param display    {@code display='on'}: a GPU (an SR-IOV vGPU VF among them) whose
     *                   {@code gpus[]} entry enables its display explicitly
     * @param ramfb      {@code ramfb='on'}, only with the display
     */
    record Pci(String alias, PciAddress source, List<PciAddress> companions, boolean display, boolean ramfb, String origin)
            implements PlannedHostdev {
        public Pci {
            Objects.requireNonNull(alias, "alias");
            Objects.requireNonNull(source, "source");
            companions = List.copyOf(companions);
            for (PciAddress c : companions) {
                if (c.equals(source)) {
                    throw new IllegalArgumentException("companion " + c + " of " + source + " is the device itself");
                }
            }
            if (ramfb && !display) throw new IllegalArgumentException("PCI hostdev " + source + ": ramfb needs display on (libvirt rule)");
        }

        /** A PCI hostdev without a display, as every one but an explicitly enabled GPU display is. */
        public Pci(String alias, PciAddress source, List<PciAddress> companions, String origin) {
            this(alias, source, companions, false, false, origin);
        }
    }

    /** A mediated device ({@code type='mdev' model='vfio-pci'}). */
    record Mdev(String alias, MdevUuid uuid, boolean display, boolean ramfb, String origin) implements PlannedHostdev {
        public Mdev {
            Objects.requireNonNull(alias, "alias");
            Objects.requireNonNull(uuid, "uuid");
            if (ramfb && !display) throw new IllegalArgumentException("mdev " + uuid + ": ramfb needs display on (libvirt rule)");
        }
    }
}
