package io.vfiodp.libvirt;

import java.util.List;

/** The result of turning env (and a VMI) into hostdevs: all of them, or the reasons there are none. */
public sealed interface PlanOutcome {

    /**
     * @param hostdevs in VMI order (gpus, then hostDevices), or variable-name order without a VMI
     * @param notes    things worth a log line that did not stop the plan
     * @param warnings what KubeVirt itself would fail on where the helper goes on, each naming the
     *                 VMI and the field
     */
    record Planned(List<PlannedHostdev> hostdevs, List<String> notes, List<String> warnings) implements PlanOutcome {
        public Planned {
            hostdevs = List.copyOf(hostdevs);
            notes = List.copyOf(notes);
            warnings = List.copyOf(warnings);
        }

        /** A plan without warnings. */
        public Planned(List<PlannedHostdev> hostdevs, List<String> notes) {
            this(hostdevs, notes, List.of());
        }
    }

    /** Every problem found, each naming the VMI entry and the variable. Nothing is planned. */
    record Failed(List<String> problems) implements PlanOutcome {
        public Failed {
            problems = List.copyOf(problems);
            if (problems.isEmpty()) throw new IllegalArgumentException("a failed plan needs at least one problem");
        }

        public String message() {
            return String.join("\n", problems);
        }
    }
}
