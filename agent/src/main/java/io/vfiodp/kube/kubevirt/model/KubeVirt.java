package io.vfiodp.kube.kubevirt.model;

import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** KubeVirt's installation CR ({@code kubevirts.kubevirt.io/v1}). */
@Group("kubevirt.io")
@Version("v1")
@Singular("kubevirt")
@Plural("kubevirts")
public class KubeVirt extends CustomResource<KubeVirtSpec, KubeVirtStatus> implements Namespaced {

    @Override
    protected KubeVirtSpec initSpec() {
        return new KubeVirtSpec();
    }
}
