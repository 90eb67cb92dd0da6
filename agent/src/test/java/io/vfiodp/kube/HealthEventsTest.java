package io.vfiodp.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.policy.Health;
import io.vfiodp.policy.ResourceName;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HealthEventsTest {

    private final List<String> posted = new ArrayList<>();
    private final HealthEvents events = new HealthEvents(new HealthEvents.Sink() {
        @Override public void warn(String reason, String message) { posted.add("Warning " + reason + ": " + message); }
        @Override public void normal(String reason, String message) { posted.add("Normal " + reason + ": " + message); }
    });
    private final ResourceName t4 = ResourceName.of("nvidia.com/TU104GL_TESLA_T4");

    @Test
    void unhealthyDeviceIsAWarningWithTheReason() {
        events.healthChanged(t4, "0000:1a:00.0", Health.HEALTHY, Health.unhealthy("group 24 not viable: 0000:5e:00.0 bound to nvme"));

        assertThat(posted).containsExactly("Warning VfioDeviceUnhealthy: nvidia.com/TU104GL_TESLA_T4 device 0000:1a:00.0 is Unhealthy: "
                + "group 24 not viable: 0000:5e:00.0 bound to nvme");
    }

    @Test
    void recoveredDeviceIsANormalEvent() {
        events.healthChanged(t4, "0000:1a:00.0", Health.unhealthy("IOMMU group 24: /dev/vfio/24 missing"), Health.HEALTHY);

        assertThat(posted).containsExactly("Normal VfioDeviceHealthy: nvidia.com/TU104GL_TESLA_T4 device 0000:1a:00.0 is Healthy again");
    }
}
