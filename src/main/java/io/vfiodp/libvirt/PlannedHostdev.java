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
     * @param companions functions of the same card to attach beside it on the same guest slot;
     *                   empty unless companions were asked for
     */
    record Pci(String alias, PciAddress source, List<PciAddress> companions, String origin) implements PlannedHostdev {
        public Pci {
            Objects.requireNonNull(alias, "alias");
            Objects.requireNonNull(source, "source");
            companions = List.copyOf(companions);
            for (PciAddress c : companions) {
                if (!c.sameSlot(source) || c.function() == source.function()) {
                    throw new IllegalArgumentException("companion " + c + " of " + source + " must be another function of the same slot");
                }
            }
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
