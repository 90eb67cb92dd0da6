package io.vfiodp.dra.classes;

import static org.assertj.core.api.Assertions.assertThat;

import io.vfiodp.policy.ResourceName;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One DeviceClass per resource routed to DRA: its name, its extended resource name and its selector. */
class ExtendedResourceClassesTest {

    private static final String DRIVER = "vfio-device-plugin.io";

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "nvidia.com/TU104GL_TESLA_T4, tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io",
        "nvidia.com/tu104gl-tesla-t4, tu104gl-tesla-t4.0000.nvidia.com.vfio-device-plugin.io",
        "nvidia.com/TU104GL-TESLA-T4, tu104gl-tesla-t4.f3e4.nvidia.com.vfio-device-plugin.io",
        "nvidia.com/tu104gl_tesla_t4, tu104gl-tesla-t4.0408.nvidia.com.vfio-device-plugin.io",
        "nvidia.com/GRID_T4-1Q, grid-t4-1q.f64.nvidia.com.vfio-device-plugin.io",
        "nvidia.com/GRID.T4-1Q, grid-t4-1q.fa4.nvidia.com.vfio-device-plugin.io",
        "nvidia.com/2235, 2235.0.nvidia.com.vfio-device-plugin.io",
    })
    void theClassNameReadsAsTheResourceAndRecordsItsExactSpelling(String resource, String className) {
        assertThat(ExtendedResourceClasses.className(DRIVER, ResourceName.of(resource))).isEqualTo(className);
    }

    @Test
    void theClassSelectsTheDriversDevicesOfTheResourceAndNamesItAsItsExtendedResource() {
        ExtendedResourceClasses.Outcome o = ExtendedResourceClasses.of(DRIVER, ResourceName.of("nvidia.com/GRID_T4-1Q"));

        assertThat(o).isEqualTo(new ExtendedResourceClasses.Named(new ExtendedResourceClass("grid-t4-1q.f64.nvidia.com.vfio-device-plugin.io",
                ResourceName.of("nvidia.com/GRID_T4-1Q"), "device.driver == 'vfio-device-plugin.io'"
                        + " && device.attributes['vfio-device-plugin.io'].resourceName == 'nvidia.com/GRID_T4-1Q'")));
        var spec = ((ExtendedResourceClasses.Named) o).deviceClass().toDeviceClass().getSpec();
        assertThat(spec.getExtendedResourceName()).isEqualTo("nvidia.com/GRID_T4-1Q");
        assertThat(spec.getSelectors()).singleElement().satisfies(s -> assertThat(s.getCel().getExpression())
                .isEqualTo(((ExtendedResourceClasses.Named) o).deviceClass().selector()));
    }

    @Test
    void aResourceNameLongerThanAnAttributeHoldsGetsNoClassAndSaysWhy() {
        ResourceName longName = ResourceName.of("nvidia.com/" + "A".repeat(60));

        assertThat(ExtendedResourceClasses.of(DRIVER, longName)).isEqualTo(new ExtendedResourceClasses.Unnamable(longName, "the name is 71"
                + " characters long, more than the 64 a device attribute holds: the driver's devices carry no resourceName attribute a"
                + " DeviceClass could select them by; configure a shorter resourceName for them"));
    }

    @Test
    void theYamlIsOneDocumentPerClassAfterTheHeaderAndAResourceWithoutOneIsACommentSayingWhy() {
        List<ExtendedResourceClasses.Outcome> outcomes = ExtendedResourceClasses.of(DRIVER,
                List.of(ResourceName.of("nvidia.com/TU104GL_TESLA_T4"), ResourceName.of("nvidia.com/" + "A".repeat(60))));

        assertThat(ExtendedResourceClasses.yaml(DRIVER, outcomes, "line one\nline two")).isEqualTo("""
                # line one
                # line two
                # nvidia.com/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA: no DeviceClass: the name is 71 characters long, \
                more than the 64 a device attribute holds: the driver's devices carry no resourceName attribute a DeviceClass could select \
                them by; configure a shorter resourceName for them
                ---
                apiVersion: resource.k8s.io/v1
                kind: DeviceClass
                metadata:
                  name: tu104gl-tesla-t4.f7ec.nvidia.com.vfio-device-plugin.io
                  labels:
                    app.kubernetes.io/name: vfio-device-plugin
                spec:
                  extendedResourceName: nvidia.com/TU104GL_TESLA_T4
                  selectors:
                    - cel:
                        expression: "device.driver == 'vfio-device-plugin.io' && device.attributes['vfio-device-plugin.io'].resourceName \
                == 'nvidia.com/TU104GL_TESLA_T4'"
                """);
    }
}
