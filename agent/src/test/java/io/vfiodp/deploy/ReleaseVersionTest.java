package io.vfiodp.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.Serialization;
import io.vfiodp.checkout.Checkout;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

/**
 * One version, set in one place (pom.xml's revision, which Maven's project version, the jar's manifest and so
 * {@code --version} follow), and carried where a tool cannot read it from there: the chart's version and appVersion,
 * deploy/base's image tag, the Dockerfile's VERSION label, CHANGELOG.md's newest entry and the README's commands.
 */
class ReleaseVersionTest {

    /** The project's version: {@code <revision>} in pom.xml. */
    static String projectVersion() throws Exception {
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Checkout.path("pom.xml").toFile());
        String revision = doc.getElementsByTagName("revision").item(0).getTextContent().trim();
        assertThat(revision).as("pom.xml's revision").matches("\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?");
        return revision;
    }

    static String chartField(String field) throws IOException {
        Map<?, ?> chart = Serialization.unmarshal(Files.readString(HelmChart.CHART.resolve("Chart.yaml")), Map.class);
        return String.valueOf(chart.get(field));
    }

    @Test
    void theModulesTakeTheVersionFromTheParent() throws IOException {
        for (String pom : List.of("kubelet-api/pom.xml", "testkit/pom.xml", "agent/pom.xml", "demo/pom.xml", "image/pom.xml", "bench/pom.xml")) {
            assertThat(Files.readString(Checkout.path(pom))).as(pom)
                    .containsPattern("<artifactId>vfio-device-plugin-parent</artifactId>\\s*<version>\\$\\{revision\\}</version>");
        }
    }

    @Test
    void theChartsVersionAndAppVersionAreTheProjects() throws Exception {
        assertThat(chartField("version")).isEqualTo(projectVersion());
        assertThat(chartField("appVersion")).isEqualTo(projectVersion());
    }

    @Test
    void kustomizesImageTagIsTheProjects() throws Exception {
        for (Manifests m : Manifests.of("base")) {
            assertThat(m.container().getImage()).as(m.toString()).endsWith(":" + projectVersion());
        }
    }

    @Test
    void theChangelogsNewestEntryIsTheProjects() throws Exception {
        Matcher first = Pattern.compile("(?m)^## \\[?(\\d+\\.\\d+\\.\\d+[^\\]\\s]*)").matcher(Files.readString(Checkout.path("CHANGELOG.md")));
        assertThat(first.find()).as("a version heading in CHANGELOG.md").isTrue();
        assertThat(first.group(1)).isEqualTo(projectVersion());
    }

    @Test
    void theReadmesCommandsNameTheProjectsVersion() throws Exception {
        String readme = Files.readString(Checkout.path("README.md"));
        Matcher tags = Pattern.compile("vfio-device-plugin:(\\d+\\.\\d+\\.\\d+[^\\s\"`]*)").matcher(readme);
        assertThat(tags.results().map(r -> r.group(1)).toList()).as("image tags in README.md").isNotEmpty().containsOnly(projectVersion());
    }
}
