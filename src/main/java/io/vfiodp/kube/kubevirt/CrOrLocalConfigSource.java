package io.vfiodp.kube.kubevirt;

import io.vfiodp.policy.config.PermittedConfigSource;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KubeVirt CR's {@code permittedHostDevices} while the CR has them, otherwise the local
 * configuration (the {@code --config} file or the default policy). The watcher's thread hands in
 * each new reading; policy passes read the latest one. Each switch between the two is logged once.
 */
final class CrOrLocalConfigSource implements PermittedConfigSource {

    private static final Logger LOG = LoggerFactory.getLogger(CrOrLocalConfigSource.class);

    private final PermittedConfigSource local;
    private final String localDescription;
    private volatile KubeVirtConfig latest;
    private volatile String lastOrigin;

    /**
     * @param localDescription how to name the local configuration without reading it
     *                         ({@code --config /etc/x.yaml} or {@code default policy})
     */
    CrOrLocalConfigSource(PermittedConfigSource local, String localDescription) {
        this.local = Objects.requireNonNull(local, "local");
        this.localDescription = Objects.requireNonNull(localDescription, "localDescription");
    }

    void update(KubeVirtConfig config) {
        latest = Objects.requireNonNull(config, "config");
    }

    @Override
    public Current current() {
        if (latest instanceof KubeVirtConfig.FromCr cr && cr.permittedHostDevices().isPresent()) {
            String origin = "KubeVirt CR " + cr.source();
            if (!origin.equals(lastOrigin)) {
                LOG.info("permitted host devices now come from {}{}", origin,
                        localDescription.equals(Current.DEFAULT_POLICY.origin()) ? "" : "; it takes precedence over " + localDescription);
                lastOrigin = origin;
            }
            return new Current(origin, cr.permittedHostDevices(), List.of());
        }
        if (!localDescription.equals(lastOrigin)) {
            if (lastOrigin != null || latest != null) {
                LOG.info("permitted host devices now come from {} ({})", localDescription, switch (latest) {
                    case null -> "the KubeVirt CR has not been read yet";
                    case KubeVirtConfig.NoCr n -> "there is no KubeVirt CR";
                    case KubeVirtConfig.FromCr c -> "KubeVirt CR " + c.source() + " has no permittedHostDevices";
                });
            }
            lastOrigin = localDescription;
        }
        return local.current();
    }
}
