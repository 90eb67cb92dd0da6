package io.vfiodp.host.scan;

import io.vfiodp.host.MdevInstance;
import io.vfiodp.host.MdevParent;
import io.vfiodp.host.PciAddress;
import io.vfiodp.host.ScanProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads one device or IOMMU group of one tree, with everything hanging off it: a function with
 * its mdev types and vGPU files, an mdev instance, a group's members. The unit a full scan reads
 * every one of and a rescan reads the changed ones of. Safe for concurrent use.
 */
final class DeviceReads {

    private final ConfinedTree sys;
    private final MdevReader mdev;
    private final VgpuVfReader vf;

    DeviceReads(ConfinedTree sys) {
        this.sys = sys;
        this.mdev = new MdevReader(sys);
        this.vf = new VgpuVfReader(sys);
    }

    MdevReader mdev() {
        return mdev;
    }

    HostScan.FunctionRead function(PciFunctionReader reader, PciAddress address) {
        // instanceof, not a pattern switch: a type switch's class is generated at its first run, in serve's first scan
        // (docs/benchmarks.md, "Choices in the code")
        ScannedFunction read = reader.read(address);
        if (read instanceof ScannedFunction.Skipped s) {
            return new HostScan.FunctionRead(s, Optional.empty(), Optional.empty(), List.of(s.problem()));
        }
        ScannedFunction.Found f = (ScannedFunction.Found) read;
        List<ScanProblem> problems = new ArrayList<>(f.warnings());
        Optional<MdevParent> parent = f.hasMdevTypes() ? mdev.readParent(f, problems) : Optional.empty();
        Optional<VgpuVfReader.RawVf> raw = vf.readRaw(f, problems);
        return new HostScan.FunctionRead(f, parent, raw, problems);
    }

    HostScan.GroupRead group(int number, String groupDir) {
        String shown = "kernel/iommu_groups/" + number + "/devices";
        List<ScanProblem> problems = new ArrayList<>();
        try {
            List<PciAddress> members = new ArrayList<>();
            for (String name : sys.list(sys.directory(groupDir, "devices", shown))) {
                Optional<PciAddress> address = PciAddress.tryParse(name);
                if (address.isPresent()) members.add(address.get());
                else if (!MdevInstance.isUuid(name)) {
                    problems.add(new ScanProblem(shown + "/" + name, "neither a PCI address nor an mdev UUID; not counted as a member"));
                }
            }
            return new HostScan.GroupRead(groupDir, Optional.of(members), problems);
        } catch (EntryUnreadable e) {
            // Members then come from the functions that name this group: what matters later is
            // which devices must travel together, and those are the ones we know of.
            problems.add(new ScanProblem(e.path(), e.reason() + "; members taken from the functions linking to the group"));
            return new HostScan.GroupRead(groupDir, Optional.empty(), problems);
        }
    }
}
