package io.vfiodp.libvirt;

import java.util.Objects;
import java.util.Optional;

/**
 * What a VMI's {@code status.launcherContainerImageVersion} says about the virt-launcher that
 * runs it. virt-controller copies the image of the pod's {@code compute} container there
 * ({@code setLauncherContainerInfo}, {@code pkg/virt-controller/watch/vmi/lifecycle.go}), so it
 * is an image reference such as {@code quay.io/kubevirt/virt-launcher:v1.9.0}; its tag names
 * the release. An image named by digest alone ({@code ...@sha256:...}), a tag that is not a
 * version ({@code latest}, {@code devel}) or an absent field says nothing.
 */
public sealed interface LauncherImage {

    /** The VMI's virt-launcher is of {@code release}. */
    record Recognised(KubeVirtRelease release, String image) implements LauncherImage {
        public Recognised {
            Objects.requireNonNull(release, "release");
            Objects.requireNonNull(image, "image");
        }
    }

    /** Nothing the helper knows: {@code why} says so in words, naming the field and its value. */
    record Unrecognised(String why) implements LauncherImage {
        public Unrecognised {
            Objects.requireNonNull(why, "why");
        }
    }

    /** The field's name, as messages give it. */
    String FIELD = "status.launcherContainerImageVersion";

    /** Reads the field's value, when the VMI has one. */
    static LauncherImage of(Optional<String> field) {
        String image = field.map(String::strip).orElse("");
        if (image.isEmpty()) {
            return new Unrecognised(FIELD + " is not set (virt-controller sets it once the virt-launcher pod exists)");
        }
        String reference = image;
        int at = reference.indexOf('@');
        boolean digest = at >= 0;
        if (digest) reference = reference.substring(0, at);
        int colon = reference.lastIndexOf(':');
        Optional<String> tag = colon > reference.lastIndexOf('/') ? Optional.of(reference.substring(colon + 1))
                : reference.indexOf('/') < 0 && KubeVirtRelease.looksLikeVersion(reference) ? Optional.of(reference) : Optional.empty();
        if (tag.isEmpty()) {
            return new Unrecognised(FIELD + " '" + image + "' " + (digest ? "names the image by digest alone" : "has no tag")
                    + ", which names no KubeVirt version");
        }
        if (!KubeVirtRelease.looksLikeVersion(tag.get())) {
            return new Unrecognised(FIELD + " '" + image + "' has the tag '" + tag.get() + "', which is not a KubeVirt version");
        }
        return KubeVirtRelease.ofVersion(tag.get())
                .<LauncherImage>map(r -> new Recognised(r, image))
                .orElseGet(() -> new Unrecognised(FIELD + " '" + image + "' names KubeVirt " + tag.get()
                        + ", not a release whose virt-launcher this helper imitates (it knows " + KubeVirtRelease.known() + ")"));
    }
}
