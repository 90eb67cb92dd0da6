package io.vfiodp.libvirt;

import io.vfiodp.libvirt.VgpuDisplay.RamFb;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The KubeVirt releases whose virt-launcher the helper can imitate, each with the rules in which
 * it differs from the others, written once here. Everything else the helper does is alike in all
 * of them: {@code pkg/virt-launcher/virtwrap/device/hostdevice/} changed between v1.9.0 and main
 * only in {@code hostdev.go}'s {@code isRamFBSet}, and {@code release-1.9} has not changed it since.
 */
public enum KubeVirtRelease {

    /** v1.9.x: tag v1.9.0 (commit 79d34c1762), branch release-1.9 (390cf886c3). */
    V1_9("1.9", "1.9 (v1.9.x)") {
        /** {@code isRamFBSet} of v1.9.0: {@code RamFB != nil && RamFB.Enabled != nil && *RamFB.Enabled}. */
        @Override
        public boolean ramfbBesidePciDisplay(RamFb ramFb) {
            return ramFb == RamFb.ENABLED;
        }
    },

    /**
     * The coming v1.10, as main is (d923fdb815): commit ac2ad7de6a, "Default ramfb to enabled when
     * display is set".
     */
    V1_10("1.10", "1.10 (main after v1.9.0)") {
        /** {@code isRamFBSet} since ac2ad7de6a: {@code RamFB == nil || RamFB.Enabled == nil || *RamFB.Enabled}. */
        @Override
        public boolean ramfbBesidePciDisplay(RamFb ramFb) {
            return ramFb != RamFb.DISABLED;
        }
    };

    /** The newest release's version: what the helper follows unless told otherwise. */
    public static final String NEWEST_VERSION = "1.9";

    private static final Pattern VERSION = Pattern.compile("v?(\\d+)\\.(\\d+)(?:\\.\\d+)?(?:[-+][0-9A-Za-z.+-]*)?");

    private final String label;
    private final String description;

    KubeVirtRelease(String label, String description) {
        this.label = label;
        this.description = description;
    }

    /** The newest release ({@value #NEWEST_VERSION}). */
    public static KubeVirtRelease newest() {
        return parse(NEWEST_VERSION);
    }

    /** {@code 1.9}, {@code 1.10}. */
    public String label() {
        return label;
    }

    /**
     * Whether a PCI {@code gpus[]} device (an SR-IOV vGPU VF or a GPU) whose display is explicitly
     * enabled also gets {@code ramfb='on'}: {@code createPCIHostDevice} asks {@code isRamFBSet}
     * ({@code pkg/virt-launcher/virtwrap/device/hostdevice/hostdev.go}), which ac2ad7de6a changed.
     * Given {@code ramFB} as written; virt-launcher sees it as virt-api stored it
     * ({@link RamFb#admitted()}), where {@code ramFB: {}} is enabled for both releases.
     */
    public abstract boolean ramfbBesidePciDisplay(RamFb ramFb);

    /** {@code 1.9 (v1.9.x)}: how messages name it. */
    public String describe() {
        return description;
    }

    /**
     * The release a version names: {@code 1.9}, {@code v1.9.0}, {@code 1.10.0-rc.0}, or
     * {@code main} for the coming release. Throws {@link IllegalArgumentException} saying which
     * releases it knows when {@code version} names none of them.
     */
    public static KubeVirtRelease parse(String version) {
        String v = version.strip();
        if (v.toLowerCase(Locale.ROOT).equals("main")) return V1_10;
        Optional<KubeVirtRelease> known = ofVersion(v);
        if (known.isPresent()) return known.get();
        String what = VERSION.matcher(v).matches() ? "KubeVirt " + v + " is not a release whose virt-launcher this helper imitates"
                : "'" + version + "' is not a KubeVirt version (write X.Y, e.g. 1.9)";
        throw new IllegalArgumentException(what + "; it knows " + known());
    }

    /** The release of a version string, when it is one of ours. */
    static Optional<KubeVirtRelease> ofVersion(String version) {
        Matcher m = VERSION.matcher(version);
        if (!m.matches()) return Optional.empty();
        String label = Integer.parseInt(m.group(1)) + "." + Integer.parseInt(m.group(2));
        return Arrays.stream(values()).filter(r -> r.label.equals(label)).findFirst();
    }

    /** The releases, as messages list them. */
    public static String known() {
        return Arrays.stream(values()).map(KubeVirtRelease::describe).collect(Collectors.joining(" and "));
    }

    /** Whether {@code version} is written as a version at all (known or not). */
    static boolean looksLikeVersion(String version) {
        return VERSION.matcher(version).matches();
    }
}
