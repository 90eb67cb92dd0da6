package io.vfiodp.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Enumeration;
import java.util.Optional;
import java.util.jar.Attributes;
import java.util.jar.Manifest;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code vfio-device-plugin 0.1.0 (commit 7089ed808ea4)}: Maven's project version and the commit the build recorded
 * in the jar's manifest (agent/pom.xml). Run from classes rather than the jar (tests), both are unknown.
 */
final class VersionProvider implements IVersionProvider {

    @Override
    public String[] getVersion() {
        Optional<Attributes> manifest = manifest();
        return new String[] {describe(manifest.map(a -> a.getValue(Attributes.Name.IMPLEMENTATION_VERSION)).orElse(null),
                manifest.map(a -> a.getValue("Build-Commit")).orElse(null))};
    }

    /**
     * The version line from the manifest's values; a value the build could not fill (no git at hand: Maven leaves the
     * property's name, {@code ${git.commit.id.abbrev}}) counts as unknown.
     */
    static String describe(String version, String commit) {
        return "vfio-device-plugin " + (known(version) ? version : "dev") + " (commit " + (known(commit) ? commit : "unknown") + ")";
    }

    private static boolean known(String value) {
        return value != null && !value.isBlank() && !value.startsWith("${");
    }

    /**
     * The main attributes of the jar this class was loaded from, read through its class loader (which has the jar open
     * already); empty when it was not loaded from a jar.
     */
    private static Optional<Attributes> manifest() {
        URL self = VersionProvider.class.getResource(VersionProvider.class.getSimpleName() + ".class");
        if (self == null || !"jar".equals(self.getProtocol())) return Optional.empty();
        String jar = self.toString().substring(0, self.toString().indexOf("!/") + 2);
        try {
            Enumeration<URL> manifests = VersionProvider.class.getClassLoader().getResources("META-INF/MANIFEST.MF");
            while (manifests.hasMoreElements()) {
                URL url = manifests.nextElement();
                if (!url.toString().startsWith(jar)) continue;
                try (InputStream in = url.openStream()) {
                    return Optional.of(new Manifest(in).getMainAttributes());
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
