package io.vfiodp.vgpu;

import io.vfiodp.host.PciAddress;

import java.util.Objects;

/** One sysfs write the layout needs; {@link #gpu()} is the physical GPU it changes. */
public sealed interface PlannedWrite {

    PciAddress gpu();

    /** The vGPU type the write concerns, for logs and Events. */
    String typeName();

    /** One line for {@code --dry-run}, logs and Events. */
    String describe();

    /** Write a fresh UUID to {@code <parent>/mdev_supported_types/<typeId>/create}. */
    record CreateMdev(PciAddress parent, String typeId, String typeName, String uuid) implements PlannedWrite {
        public CreateMdev {
            Objects.requireNonNull(parent, "parent");
            Objects.requireNonNull(typeId, "typeId");
            Objects.requireNonNull(typeName, "typeName");
            Objects.requireNonNull(uuid, "uuid");
        }

        @Override
        public PciAddress gpu() {
            return parent;
        }

        @Override
        public String describe() {
            return "create mdev " + typeId + " (" + typeName + ") on " + parent;
        }
    }

    /** Write {@code 1} to {@code bus/mdev/devices/<uuid>/remove}. */
    record RemoveMdev(PciAddress parent, String uuid, String typeName) implements PlannedWrite {
        public RemoveMdev {
            Objects.requireNonNull(parent, "parent");
            Objects.requireNonNull(uuid, "uuid");
            Objects.requireNonNull(typeName, "typeName");
        }

        @Override
        public PciAddress gpu() {
            return parent;
        }

        @Override
        public String describe() {
            return "remove mdev " + uuid + " (" + typeName + ") from " + parent;
        }
    }

    /** Write the numeric type id to {@code <vf>/nvidia/current_vgpu_type}. */
    record SetVgpuType(PciAddress vf, PciAddress physfn, int typeId, String typeName) implements PlannedWrite {
        public SetVgpuType {
            Objects.requireNonNull(vf, "vf");
            Objects.requireNonNull(physfn, "physfn");
            Objects.requireNonNull(typeName, "typeName");
            if (typeId <= 0) throw new IllegalArgumentException("vGPU type id must be positive: " + typeId);
        }

        @Override
        public PciAddress gpu() {
            return physfn;
        }

        @Override
        public String describe() {
            return "set vGPU type " + typeId + " (" + typeName + ") on VF " + vf + " of " + physfn;
        }
    }

    /** Write {@code 0} to {@code <vf>/nvidia/current_vgpu_type}. */
    record ClearVgpuType(PciAddress vf, PciAddress physfn, int typeId, String typeName) implements PlannedWrite {
        public ClearVgpuType {
            Objects.requireNonNull(vf, "vf");
            Objects.requireNonNull(physfn, "physfn");
            Objects.requireNonNull(typeName, "typeName");
        }

        @Override
        public PciAddress gpu() {
            return physfn;
        }

        @Override
        public String describe() {
            return "clear vGPU type " + typeId + " (" + typeName + ") from VF " + vf + " of " + physfn;
        }
    }
}
