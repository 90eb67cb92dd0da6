/**
 * The part of KubeVirt's {@code kubevirts.kubevirt.io/v1} CR the plugin reads, field names as in KubeVirt's
 * {@code staging/src/kubevirt.io/api/core/v1/types.go}. The classes are mutable beans rather than records
 * because fabric8 reads and writes them (its informers, and {@code edit()} in tests) and every field we do not
 * model must survive a read-modify-write: each class keeps its unknown fields ({@link io.vfiodp.kube.kubevirt.model.UnknownFields}).
 * They are written by hand: fabric8's CRD-to-Java generator ends at 7.7 and annotates for Jackson 2, which
 * fabric8 8 (Jackson 3) ignores.
 */
package io.vfiodp.kube.kubevirt.model;
