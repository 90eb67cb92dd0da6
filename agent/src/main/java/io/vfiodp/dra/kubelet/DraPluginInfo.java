package io.vfiodp.dra.kubelet;

import io.vfiodp.kubelet.PluginWatcherRegistration;
import io.vfiodp.proto.pluginregistration.v1.RegistrationStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/** What the kubelet's plugin watcher is told about this driver on its registration socket. */
public final class DraPluginInfo {

    /** {@code registerapi.DRAPlugin}. */
    public static final String TYPE = "DRAPlugin";
    /**
     * The services of the DRA socket, as the kubelet names them: it uses the first of the node
     * services it knows ({@code validateSupportedServices}), so v1 comes first, and it watches health
     * only when the health service is listed.
     */
    public static final List<String> SERVICES = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth");

    private DraPluginInfo() {}

    /** The registration service of driver {@code driver}, whose DRA service listens on {@code draSocket}. */
    public static PluginWatcherRegistration registration(String driver, Path draSocket, Consumer<RegistrationStatus> onVerdict) {
        return new PluginWatcherRegistration(TYPE, driver, draSocket, SERVICES, onVerdict);
    }
}
