package io.vfiodp.dra.classes;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.vfiodp.policy.ResourceName;
import java.util.Map;
import java.util.Objects;

/**
 * The DeviceClass through which a pod asking an extended resource ({@code resources.limits:
 * {nvidia.com/X: n}}, as virt-launcher's pod does for a VMI's {@code gpus[].deviceName}) gets this
 * driver's devices of that resource (KEP-5004): its {@code spec.extendedResourceName} is the
 * resource, its one selector takes the driver's devices whose {@code resourceName} attribute is it.
 *
 * @param name     the class's name ({@link ExtendedResourceClasses#className})
 * @param selector the CEL expression of its selector
 */
public record ExtendedResourceClass(String name, ResourceName resource, String selector) {

    /** The label every object the project ships carries. */
    static final Map<String, String> LABELS = Map.of("app.kubernetes.io/name", "vfio-device-plugin");

    public ExtendedResourceClass {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(selector, "selector");
    }

    /** The class as the API holds it. */
    public DeviceClass toDeviceClass() {
        return new DeviceClassBuilder().withNewMetadata().withName(name).withLabels(LABELS).endMetadata()
                .withNewSpec().withExtendedResourceName(resource.value()).addNewSelector().withNewCel().withExpression(selector).endCel()
                .endSelector().endSpec().build();
    }

    /** The class as a YAML document, as {@code deploy/dra} ships it and {@code inventory --device-classes} prints it. */
    public String yaml() {
        return """
                apiVersion: resource.k8s.io/v1
                kind: DeviceClass
                metadata:
                  name: %s
                  labels:
                    app.kubernetes.io/name: vfio-device-plugin
                spec:
                  extendedResourceName: %s
                  selectors:
                    - cel:
                        expression: "%s"
                """.formatted(name, resource.value(), selector);
    }
}
