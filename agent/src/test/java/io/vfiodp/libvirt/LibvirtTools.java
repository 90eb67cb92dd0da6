package io.vfiodp.libvirt;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * libvirt's own judges for the XML our tests produce: {@code virt-xml-validate} checks it
 * against libvirt's RelaxNG schema, {@code virsh -c test:///default define} runs libvirt's
 * real parser and post-parse validation (duplicate hostdevs, more than one ramfb, …) in the
 * built-in test driver, which needs no daemon and keeps no state between calls. Missing tools
 * fail the test: CI installs them (.ci/run).
 */
public final class LibvirtTools {

    private static final String INSTALL_HINT = "install libvirt's client tools: apt-get install libvirt-clients";

    private LibvirtTools() {}

    /** A minimal valid q35 domain around {@code devices}. */
    public static String domainWith(String devices) {
        return "<domain type='kvm'><name>t</name><memory>1048576</memory>"
                + "<os><type arch='x86_64' machine='q35'>hvm</type></os><devices>\n"
                + devices
                + "</devices></domain>\n";
    }

    /** Validates and defines hostdev elements inside {@link #domainWith}. */
    public static void assertHostdevsAccepted(String hostdevElements) {
        assertDomainAccepted(domainWith(hostdevElements));
    }

    /** Schema-validates and defines a whole domain; fails with libvirt's own message otherwise. */
    public static void assertDomainAccepted(String domainXml) {
        Path file = null;
        try {
            file = Files.createTempFile("vfiodp-domain-", ".xml");
            Files.writeString(file, domainXml, StandardCharsets.UTF_8);
            run(List.of("virt-xml-validate", file.toString(), "domain"), domainXml);
            run(List.of("virsh", "-q", "-c", "test:///default", "define", file.toString()), domainXml);
        } catch (IOException e) {
            fail("cannot write a temporary domain file: " + e);
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a leftover temp file does not change the verdict
                }
            }
        }
    }

    /**
     * Whether this machine's libvirt takes {@code display}/{@code ramfb} on a {@code type='pci'}
     * hostdev, by its schema. libvirt 9.0 (Debian 12) does not: its schema refuses them and its
     * parser drops them; 11.3 (Debian 13) and 12.8 (Debian sid) take them (libvirt commit
     * e2a7dd3f, "display and ramfb for vfio PCI host devices").
     */
    public static boolean knowsPciHostdevDisplay() {
        String domain = domainWith("<hostdev mode='subsystem' type='pci' managed='no' display='on' ramfb='on'><source>"
                + "<address domain='0x0000' bus='0x3b' slot='0x00' function='0x0'/></source></hostdev>\n");
        Path file = null;
        try {
            file = Files.createTempFile("vfiodp-pci-display-", ".xml");
            Files.writeString(file, domain, StandardCharsets.UTF_8);
            Process p = new ProcessBuilder("virt-xml-validate", file.toString(), "domain").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("virt-xml-validate did not finish within 60 s");
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            fail("virt-xml-validate is not available (" + e.getMessage() + "): " + INSTALL_HINT);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted while running virt-xml-validate");
            return false;
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException ignored) {
                    // a leftover temp file does not change the verdict
                }
            }
        }
    }

    /**
     * As {@link #assertHostdevsAccepted}, for hostdevs that may carry a display on a PCI
     * hostdev: where libvirt knows that ({@link #knowsPciHostdevDisplay}) the XML as written,
     * elsewhere the XML without those two attributes, so that everything else is still judged.
     */
    public static void assertHostdevsAcceptedWithPciDisplay(String hostdevElements) {
        if (knowsPciHostdevDisplay()) {
            assertHostdevsAccepted(hostdevElements);
        } else {
            assertHostdevsAccepted(hostdevElements.replaceAll("(<hostdev [^>]*type=\"pci\"[^>]*?) display=\"on\"( ramfb=\"on\")?", "$1"));
        }
    }

    /** Runs a libvirt tool on {@code xml}'s file; fails with its output, or with what to install when it is missing. */
    static void run(List<String> command, String xml) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            fail(command.get(0) + " is not available (" + e.getMessage() + "): " + INSTALL_HINT);
            return;
        }
        try {
            byte[] output = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail(String.join(" ", command) + " did not finish within 60 s");
            }
            String printed = new String(output, StandardCharsets.UTF_8);
            if (p.exitValue() != 0 && printed.matches("(?s).*xmllint: (command )?not found.*")) {
                fail(command.get(0) + " runs xmllint, which is not installed: apt-get install libxml2-utils (.ci/run installs it)");
            }
            if (p.exitValue() != 0) {
                fail("libvirt rejects the XML: " + String.join(" ", command) + " exited " + p.exitValue() + ":\n"
                        + printed + "\n--- XML ---\n" + numbered(xml));
            }
        } catch (IOException e) {
            fail("cannot read the output of " + command.get(0) + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted while running " + command.get(0));
        }
    }

    private static String numbered(String xml) {
        List<String> out = new ArrayList<>();
        String[] lines = xml.split("\n", -1);
        for (int i = 0; i < lines.length; i++) out.add((i + 1) + ": " + lines[i]);
        return String.join("\n", out);
    }
}
