package io.vfiodp.kube.kubevirt;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.kube.kubevirt.model.KubeVirt;
import io.vfiodp.kube.kubevirt.model.PermittedHostDevices;

/** KubeVirt CRs as tests write them: a deployed installation whose permittedHostDevices a test chooses. */
public final class KubeVirtCrs {

    private KubeVirtCrs() {}

    /** A deployed KubeVirt CR permitting {@code permittedHostDevicesYaml}, with fields the plugin does not read. */
    public static KubeVirt cr(String namespace, String name, String permittedHostDevicesYaml) {
        KubeVirt kv = Serialization.unmarshal("""
                apiVersion: kubevirt.io/v1
                kind: KubeVirt
                metadata: {name: %s, namespace: %s}
                spec:
                  imagePullPolicy: IfNotPresent
                  configuration:
                    developerConfiguration: {featureGates: [GPU, HostDevices]}
                status: {phase: Deployed}
                """.formatted(name, namespace), KubeVirt.class);
        kv.getSpec().getConfiguration().setPermittedHostDevices(permitted(permittedHostDevicesYaml));
        return kv;
    }

    public static PermittedHostDevices permitted(String yaml) {
        return Serialization.unmarshal(yaml, PermittedHostDevices.class);
    }

    /** Creates the KubeVirt CR kubevirt/kubevirt, deployed, permitting {@code permittedHostDevicesYaml}, through {@code client}. */
    public static void create(KubernetesClient client, String permittedHostDevicesYaml) {
        client.resource(cr("kubevirt", "kubevirt", permittedHostDevicesYaml)).create();
    }
}
