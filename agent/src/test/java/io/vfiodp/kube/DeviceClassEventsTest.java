package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.dra.classes.ClassVerdict;
import io.vfiodp.policy.ResourceName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class DeviceClassEventsTest {

    private static final ResourceName T4 = ResourceName.of("nvidia.com/TU104GL_TESLA_T4");
    private static final String CLASS = "tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io";

    private final List<String> posted = new ArrayList<>();
    private final DeviceClassEvents events = new DeviceClassEvents(new HealthEvents.Sink() {
        @Override public void warn(String reason, String message) { posted.add("Warning " + reason + ": " + message); }
        @Override public void normal(String reason, String message) { posted.add("Normal " + reason + ": " + message); }
    });

    private static SortedMap<ResourceName, ClassVerdict> verdicts(ClassVerdict v) {
        return new TreeMap<>(Map.of(T4, v));
    }

    @Test
    void aMissingClassIsAWarningSayingWhatToDo() {
        events.deviceClasses(new TreeMap<>(), verdicts(new ClassVerdict.Missing(CLASS)));

        assertThat(posted).containsExactly("Warning VfioDraDeviceClassProblem: nvidia.com/TU104GL_TESLA_T4 is routed to DRA, but DeviceClass "
                + CLASS + " does not exist, so pods asking the resource are scheduled neither through DRA nor through a device plugin here;"
                + " create it: vfio-device-plugin inventory --dra-resources=... --device-classes | kubectl apply -f -");
    }

    @Test
    void aClassPutRightIsANormalEvent() {
        events.deviceClasses(verdicts(new ClassVerdict.Missing(CLASS)), verdicts(new ClassVerdict.Ready(CLASS)));

        assertThat(posted).containsExactly("Normal VfioDraDeviceClassReady: nvidia.com/TU104GL_TESLA_T4: DeviceClass " + CLASS
                + " is in place: pods asking the resource get its devices here through DRA");
    }

    @Test
    void aClassInPlaceFromTheStartAndOneUnchangedPostNothing() {
        events.deviceClasses(new TreeMap<>(), verdicts(new ClassVerdict.Ready(CLASS)));
        events.deviceClasses(verdicts(new ClassVerdict.Missing(CLASS)), verdicts(new ClassVerdict.Missing(CLASS)));

        assertThat(posted).isEmpty();
    }
}
