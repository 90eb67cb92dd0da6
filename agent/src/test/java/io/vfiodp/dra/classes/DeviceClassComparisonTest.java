package io.vfiodp.dra.classes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.policy.ResourceName;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A DeviceClass in the API against the one a resource routed to DRA needs. */
class DeviceClassComparisonTest {

    private static final ExtendedResourceClass T4 = ((ExtendedResourceClasses.Named) ExtendedResourceClasses.of("vfio-device-plugin.io",
            ResourceName.of("nvidia.com/TU104GL_TESLA_T4"))).deviceClass();

    @Test
    void theClassAsPrintedIsReady() {
        assertThat(DeviceClassComparison.verdict(T4, Optional.of(asRead(T4.toDeviceClass())))).isEqualTo(new ClassVerdict.Ready(T4.name()));
    }

    @Test
    void noClassIsMissing() {
        assertThat(DeviceClassComparison.verdict(T4, Optional.empty())).isEqualTo(new ClassVerdict.Missing(T4.name()));
    }

    @Test
    void aClassForAnotherExtendedResourceDiffersAndSaysHow() {
        DeviceClass other = new DeviceClassBuilder(T4.toDeviceClass()).editSpec().withExtendedResourceName("nvidia.com/gpu").endSpec().build();

        assertThat(DeviceClassComparison.verdict(T4, Optional.of(asRead(other)))).isEqualTo(new ClassVerdict.Differs(T4.name(),
                "has spec.extendedResourceName nvidia.com/gpu, not nvidia.com/TU104GL_TESLA_T4"));
    }

    @Test
    void aClassWithoutAnExtendedResourceNameDiffers() {
        DeviceClass plain = new DeviceClassBuilder(T4.toDeviceClass()).editSpec().withExtendedResourceName(null).endSpec().build();

        assertThat(DeviceClassComparison.verdict(T4, Optional.of(asRead(plain)))).isEqualTo(new ClassVerdict.Differs(T4.name(),
                "has no spec.extendedResourceName, not nvidia.com/TU104GL_TESLA_T4"));
    }

    @Test
    void aClassSelectingOtherDevicesDiffersAndSaysWhatItSelects() {
        DeviceClass other = new DeviceClassBuilder(T4.toDeviceClass()).editSpec().withSelectors().addNewSelector().withNewCel()
                .withExpression("device.driver == 'gpu.nvidia.com'").endCel().endSelector().endSpec().build();

        assertThat(DeviceClassComparison.verdict(T4, Optional.of(asRead(other)))).isEqualTo(new ClassVerdict.Differs(T4.name(),
                "selects [device.driver == 'gpu.nvidia.com'], not [" + T4.selector() + "]"));
    }

    /** {@code c} as the monitor reads it from the API: a generic resource, a JSON tree. */
    private static GenericKubernetesResource asRead(DeviceClass c) {
        return Serialization.unmarshal(Serialization.asJson(c), GenericKubernetesResource.class);
    }
}
