package io.vfiodp.dra.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.dra.DraNodes;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.model.NumaForm;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The claim {@link ClaimSource} reads as a generic resource and copies what the driver reads of it:
 * the check decides on it exactly as on the claim read through fabric8's typed model.
 */
class ClaimSourceTest {

    private static final String DRIVER = "vfio-device-plugin.io";
    private static final String POOL = "node-a";
    private static final DriverView VIEW = DriverView.of(DraNodes.allDra("t4-numa"), NumaForm.SCALAR);

    private static String claim(String annotations, String status) {
        return """
                {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                 "metadata": {"namespace": "vms", "name": "vm1-gpu", "uid": "u-1"%s},
                 "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "c"}}]}}%s}
                """.formatted(annotations, status);
    }

    private static String results(String... results) {
        return ", \"status\": {\"allocation\": {\"devices\": {\"results\": [" + String.join(", ", results) + "]}}}";
    }

    private static String result(String request, String driver, String pool, String device, String extra) {
        return "{\"request\": \"%s\", \"driver\": \"%s\", \"pool\": \"%s\", \"device\": \"%s\"%s}".formatted(request, driver, pool, device, extra);
    }

    @Test
    void theCheckDecidesOnTheCopyAsOnTheTypedClaim() {
        String ours = result("gpu", DRIVER, POOL, "pci-0000-1a-00-0", "");
        List<String> claims = List.of(
                claim("", results(ours)),
                claim(", \"annotations\": {\"resource.kubernetes.io/pod-claim-name\": \"gpu\"}", results(ours)),
                claim(", \"annotations\": {\"resource.kubernetes.io/extended-resource-claim\": \"true\"}", results(ours)),
                claim("", results(result("nic", "other.io", POOL, "eth0", ""), ours)),
                claim("", results(result("gpu", DRIVER, POOL, "pci-0000-1a-00-0", ", \"adminAccess\": true"))),
                claim("", results(result("gpu", DRIVER, "node-b", "pci-0000-1a-00-0", ""))),
                claim("", results(result("gpu", DRIVER, "", "pci-0000-1a-00-0", ""))),
                claim("", results("null", ours)),
                claim("", results(ours, ours)),
                claim("", results()),
                claim("", ", \"status\": {\"allocation\": {}}"),
                claim("", ", \"status\": {}"),
                claim("", ""));
        for (String json : claims) {
            ClaimAllocations.Outcome typed = ClaimAllocations.check(Serialization.unmarshal(json, ResourceClaim.class), "u-1", DRIVER, POOL, VIEW);
            ClaimAllocations.Outcome copied = ClaimAllocations.check(ClaimSource.allocated(Serialization.unmarshal(json, GenericKubernetesResource.class)),
                    "u-1", DRIVER, POOL, VIEW);
            assertThat(copied).as(json).isEqualTo(typed);
        }
    }
}
