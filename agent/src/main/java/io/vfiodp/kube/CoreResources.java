package io.vfiodp.kube;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * The core API's Nodes and Pods as fabric8's generic resources read them: named outright, so the
 * client asks no discovery for the plural. Serve reads them so, not through fabric8's typed
 * {@code Node} and {@code Pod}, whose whole graphs Jackson would introspect (with the builders their
 * methods name) for the few fields serve reads (docs/benchmarks.md, "Choices in the code").
 */
public final class CoreResources {

    public static final ResourceDefinitionContext NODES = new ResourceDefinitionContext.Builder().withGroup("").withVersion("v1")
            .withKind("Node").withPlural("nodes").withNamespaced(false).build();
    public static final ResourceDefinitionContext PODS = new ResourceDefinitionContext.Builder().withGroup("").withVersion("v1")
            .withKind("Pod").withPlural("pods").withNamespaced(true).build();

    private CoreResources() {}
}
