package io.vfiodp.doctor;

import io.vfiodp.host.Reading;
import java.nio.file.Path;
import java.util.List;

/**
 * The kubelet's side: {@code kubelet.device-plugins} (the device-plugin directory, where serve puts
 * its sockets, and the kubelet's {@code kubelet.sock} in it), {@code kubelet.plugins-registry}
 * (where a DRA driver registers) and {@code kubelet.cdi} (where container runtimes read the CDI
 * specs the DRA driver writes). The last two matter only with {@code --dra-resources}.
 */
final class KubeletCheck implements Check {

    static final String DEVICE_PLUGINS = "kubelet.device-plugins";
    static final String REGISTRY = "kubelet.plugins-registry";
    static final String CDI = "kubelet.cdi";

    @Override
    public List<Finding> run(NodeView node) {
        KubeletFacts k = node.kubelet();
        return List.of(Finding.of(DEVICE_PLUGINS, devicePlugins(k)), Finding.of(REGISTRY, registry(k)), Finding.of(CDI, cdi(k)));
    }

    private static Outcome devicePlugins(KubeletFacts k) {
        String dir = k.paths().devicePluginDir().toString();
        Fix mount = Fix.advice("mount the kubelet's device-plugin directory there (hostPath /var/lib/kubelet/device-plugins), or point"
                + " --device-plugin-dir at <kubelet --root-dir>/device-plugins");
        if (!(k.devicePluginDir() instanceof Reading.Found<KubeletFacts.EntryKind>(KubeletFacts.EntryKind kind))) {
            return new Outcome.Fail(CommandLineCheck.describe(k.devicePluginDir()) + ": serve cannot start", mount);
        }
        if (kind != KubeletFacts.EntryKind.DIRECTORY) return new Outcome.Fail(dir + " is not a directory: serve cannot start", mount);
        if (!k.pluginDirWritable()) {
            return new Outcome.Warn(dir + " is not writable here: serve cannot create its sockets in it",
                    Fix.advice("run serve as root (the kubelet's directory is root's, mode 0750)"));
        }
        return switch (k.kubeletSock()) {
            case Reading.Found<KubeletFacts.EntryKind>(KubeletFacts.EntryKind s) when s == KubeletFacts.EntryKind.SOCKET ->
                    new Outcome.Ok(dir + "/kubelet.sock is there: serve can register");
            case Reading.Found<KubeletFacts.EntryKind> other -> new Outcome.Warn(dir + "/kubelet.sock is not a socket",
                    Fix.advice("restart the kubelet: it makes kubelet.sock again"));
            case Reading.Absent<KubeletFacts.EntryKind> a -> new Outcome.Warn(dir + "/kubelet.sock does not exist: the kubelet is not running,"
                    + " or its root directory is elsewhere", Fix.advice("start the kubelet; serve registers as soon as kubelet.sock appears"));
            case Reading.Unreadable<KubeletFacts.EntryKind> u -> new Outcome.Warn("cannot look at " + u.describe(),
                    Fix.advice("run doctor as root"));
        };
    }

    private static Outcome registry(KubeletFacts k) {
        return directory(k.paths().registryDir(), k.registryDir(), k.paths().draEnabled(), "the DRA driver registers there",
                "mount the kubelet's plugin registry (hostPath /var/lib/kubelet/plugins_registry), or point --dra-registry-dir at it");
    }

    private static Outcome cdi(KubeletFacts k) {
        return directory(k.paths().cdiDir(), k.cdiDir(), k.paths().draEnabled(), "the DRA driver writes CDI specs there",
                "mount the runtime's CDI directory (hostPath /var/run/cdi), or point --cdi-dir at one the runtime reads (containerd:"
                        + " cdi_spec_dirs)");
    }

    private static Outcome directory(Path path, Reading<KubeletFacts.EntryKind> dir, boolean needed, String use, String fix) {
        if (dir instanceof Reading.Found<KubeletFacts.EntryKind>(KubeletFacts.EntryKind kind) && kind == KubeletFacts.EntryKind.DIRECTORY) {
            return new Outcome.Ok(path + " is there" + (needed ? ": " + use : " (used only with --dra-resources)"));
        }
        String problem = dir instanceof Reading.Found<?> ? path + " is not a directory" : CommandLineCheck.describe(dir);
        if (!needed) return new Outcome.Ok(problem + " (needed only with --dra-resources)");
        return new Outcome.Fail(problem + ": " + use + ", with --dra-resources", Fix.advice(fix));
    }
}
