package io.vfiodp.inventory;

import io.vfiodp.host.pciids.PciIds;
import io.vfiodp.policy.SnapshotBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Small hand-built hosts and a pci.ids excerpt for the inventory's format tests. */
final class InventoryHosts {

    static final String IDS = """
            10de  NVIDIA Corporation
            \t10f9  TU106 High Definition Audio Controller
            \t1ada  TU106 USB 3.1 Host Controller
            \t1adb  TU106 USB Type-C UCSI Controller
            \t1eb8  TU104GL [Tesla T4]
            \t1f08  TU106 [GeForce RTX 2060 Rev. A]
            \t26b9  AD102GL [L40S]
            8086  Intel Corporation
            \t1520  I350 Ethernet Controller Virtual Function
            \t3e92  CoffeeLake-S GT2 [UHD Graphics 630]
            """;

    private InventoryHosts() {}

    static PciIds ids() {
        try {
            return PciIds.parse("test pci.ids", IDS.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Boot iGPU on i915, an RTX 2060 with three companions on vfio-pci, an Intel VF on vfio-pci. */
    static SnapshotBuilder workstation() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.fn("0000:00:02.0").id(0x8086, 0x3e92).cls(0x030000).driver("i915").group(0).numa(-1).bootVga();
        b.gpu("0000:01:00.0", 0x1f08, 1).cls(0x030000).numa(0);
        b.fn("0000:01:00.1").id(0x10de, 0x10f9).cls(0x040300).group(1).numa(0);
        b.fn("0000:01:00.2").id(0x10de, 0x1ada).cls(0x0c0330).group(1).numa(0);
        b.fn("0000:01:00.3").id(0x10de, 0x1adb).cls(0x0c8000).driver("ucsi_ccg").group(1).numa(0);
        b.fn("0000:05:10.0").id(0x8086, 0x1520).cls(0x020000).group(20).numa(0);
        b.problem("bus/pci/devices/0000:06:00.0/vendor", "not hex: 'zz'");
        return b;
    }

    /** A T4 on nvidia with two mdevs (one whose /dev/vfio node is missing) and more types offered. */
    static SnapshotBuilder t4Vgpu() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:3b:00.0", 0x1eb8, 12).driver("nvidia").numa(0);
        b.mdevParent("0000:3b:00.0", "nvidia-222=GRID T4-1B", "nvidia-223=GRID T4-2B", "nvidia-230=GRID T4-1Q");
        b.mdev("1b6a5b3c-0d4e-4f5a-9b8c-7d6e5f4a3b2c", "nvidia-222", "GRID T4-1B", "0000:3b:00.0", 101);
        b.mdev("2c7b6c4d-1e5f-4a6b-8c9d-8e7f6a5b4c3d", "nvidia-222", "GRID T4-1B", "0000:3b:00.0", 102);
        b.withoutGroupNode(102);
        return b;
    }

    /** An L40S PF on nvidia, two VFs carrying 4Q, one VF without a vGPU. */
    static SnapshotBuilder l40s() {
        SnapshotBuilder b = new SnapshotBuilder();
        b.gpu("0000:41:00.0", 0x26b9, 30).driver("nvidia").pf(32).numa(1);
        for (int fn = 4; fn <= 6; fn++) {
            b.gpu("0000:41:00." + fn, 0x26b9, 27 + fn).driver("nvidia").physfn("0000:41:00.0").numa(1);
        }
        b.vgpuVf("0000:41:00.4", "0000:41:00.0", 1147, "NVIDIA L40S-4Q");
        b.vgpuVf("0000:41:00.5", "0000:41:00.0", 1147, "NVIDIA L40S-4Q");
        b.vgpuVf("0000:41:00.6", "0000:41:00.0", 0, null);
        return b;
    }
}
