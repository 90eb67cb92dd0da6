package io.vfiodp.kube.kubevirt;

import io.vfiodp.policy.config.ConfigSource;
import io.vfiodp.policy.config.LocalConfig;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KubeVirt's rule of precedence, block by block: the CR's {@code permittedHostDevices} while the CR
 * has them, otherwise the local configuration (the {@code --config} file or the default policy);
 * the CR's {@code mediatedDevicesConfiguration} while it names types for this node, otherwise the
 * file's. The local file is read only when a block is needed from it, so a broken file does not
 * fail passes while the CR is in force. The watcher's thread hands in each new reading; passes read
 * the latest one. Each switch between the two is logged once.
 */
final class CrOrLocalConfigSource implements ConfigSource {

    private static final Logger LOG = LoggerFactory.getLogger(CrOrLocalConfigSource.class);

    private final LocalConfig local;
    private volatile KubeVirtConfig latest;
    private volatile String lastOrigin;

    CrOrLocalConfigSource(LocalConfig local) {
        this.local = Objects.requireNonNull(local, "local");
    }

    void update(KubeVirtConfig config) {
        latest = Objects.requireNonNull(config, "config");
    }

    @Override
    public Current current() {
        KubeVirtConfig now = latest;
        if (now instanceof KubeVirtConfig.FromCr cr && cr.permittedHostDevices().isPresent()) {
            String origin = "KubeVirt CR " + cr.source();
            logSwitch(origin, now);
            return new Current(origin, cr.permittedHostDevices(), layout(cr, origin), List.of());
        }
        logSwitch(local.description(), now);
        Current fromFile = local.current();
        return now instanceof KubeVirtConfig.FromCr cr && !cr.mdevTypes().types().isEmpty()
                ? new Current(fromFile.origin(), fromFile.permitted(), fromCr(cr, "KubeVirt CR " + cr.source()), fromFile.warnings())
                : fromFile;
    }

    private LayoutSetting layout(KubeVirtConfig.FromCr cr, String origin) {
        return cr.mdevTypes().types().isEmpty() ? local.layout() : fromCr(cr, origin);
    }

    private static LayoutSetting fromCr(KubeVirtConfig.FromCr cr, String origin) {
        return new LayoutSetting.Desired(cr.mdevTypes(), origin);
    }

    private void logSwitch(String origin, KubeVirtConfig now) {
        if (origin.equals(lastOrigin)) return;
        if (origin.startsWith("KubeVirt CR ")) {
            LOG.info("permitted host devices now come from {}{}", origin,
                    local.description().equals(Current.DEFAULT_POLICY.origin()) ? "" : "; it takes precedence over " + local.description());
        } else if (lastOrigin != null || now != null) {
            LOG.info("permitted host devices now come from {} ({})", origin, switch (now) {
                case null -> "the KubeVirt CR has not been read yet";
                case KubeVirtConfig.NoCr n -> "there is no KubeVirt CR";
                case KubeVirtConfig.FromCr c -> "KubeVirt CR " + c.source() + " has no permittedHostDevices";
            });
        }
        lastOrigin = origin;
    }
}
