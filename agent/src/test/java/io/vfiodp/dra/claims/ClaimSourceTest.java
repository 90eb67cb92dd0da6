package io.vfiodp.dra.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.dra.DraNodes;
import io.vfiodp.dra.model.DriverView;
import io.vfiodp.dra.model.NumaForm;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The claim {@link ClaimSource} reads as a generic resource, a JSON tree: {@link ClaimAllocations}
 * decides on it as it did on the claim read through fabric8's typed model.
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
    void theCheckDecidesOnTheJsonTreeAsOnTheTypedClaim() {
        String ours = result("gpu", DRIVER, POOL, "pci-0000-1a-00-0", "");
        String what = "ResourceClaim vms/vm1-gpu";
        var device = List.of(new ClaimAllocations.Allocated("gpu", VIEW.device("pci-0000-1a-00-0").orElseThrow()));
        var accepted = new ClaimAllocations.Accepted(new ClaimAllocations.AllocatedClaim("u-1", "vms", "vm1-gpu", Optional.empty(), device, false));
        var noDevice = new ClaimAllocations.Refused(what + " allocates no device of driver " + DRIVER);
        var unallocated = new ClaimAllocations.Refused(what + " is not allocated");
        Map<String, ClaimAllocations.Outcome> claims = new LinkedHashMap<>();
        claims.put(claim("", results(ours)), accepted);
        claims.put(claim(", \"annotations\": {\"resource.kubernetes.io/pod-claim-name\": \"gpu\"}", results(ours)),
                new ClaimAllocations.Accepted(new ClaimAllocations.AllocatedClaim("u-1", "vms", "vm1-gpu", Optional.of("gpu"), device, false)));
        claims.put(claim(", \"annotations\": {\"resource.kubernetes.io/extended-resource-claim\": \"true\"}", results(ours)),
                new ClaimAllocations.Accepted(new ClaimAllocations.AllocatedClaim("u-1", "vms", "vm1-gpu", Optional.empty(), device, true)));
        claims.put(claim("", results(result("nic", "other.io", POOL, "eth0", ""), ours)), accepted);
        claims.put(claim("", results(result("gpu", DRIVER, POOL, "pci-0000-1a-00-0", ", \"adminAccess\": true"))), new ClaimAllocations.Refused(
                what + " allocation result 0: admin access to device pci-0000-1a-00-0 is not supported: VFIO hands a device to one VM only"));
        claims.put(claim("", results(result("gpu", DRIVER, "node-b", "pci-0000-1a-00-0", ""))), new ClaimAllocations.Refused(
                what + " allocation result 0: device pci-0000-1a-00-0 is in pool node-b, another node's; this node's pool is node-a"));
        claims.put(claim("", results(result("gpu", DRIVER, "", "pci-0000-1a-00-0", ""))),
                new ClaimAllocations.Refused(what + " allocation result 0 is malformed: it lacks its pool"));
        claims.put(claim("", results("null", ours)), new ClaimAllocations.Refused(what + " is malformed: allocation result 0 is empty"));
        claims.put(claim("", results(ours, ours)), new ClaimAllocations.Refused(what + " is malformed: device pci-0000-1a-00-0 is allocated twice"));
        claims.put(claim("", results()), noDevice);
        claims.put(claim("", ", \"status\": {\"allocation\": {}}"), noDevice);
        claims.put(claim("", ", \"status\": {}"), unallocated);
        claims.put(claim("", ""), unallocated);
        claims.forEach((json, outcome) -> assertThat(ClaimAllocations.check(Serialization.unmarshal(json, GenericKubernetesResource.class),
                "u-1", DRIVER, POOL, VIEW)).as(json).isEqualTo(outcome));
    }
}
