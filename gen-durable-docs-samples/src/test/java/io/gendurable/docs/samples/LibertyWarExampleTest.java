package io.gendurable.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The example WAR project of docs/liberty.md (src/it/liberty-war, packaged by maven-invoker-plugin
 * under mvn verify) names the versions this build uses: gen-durable's own, the PostgreSQL driver's,
 * the liberty-maven-plugin's and the Open Liberty runtime's, so a user who copies it gets what the
 * suites test.
 */
class LibertyWarExampleTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void theExampleNamesTheVersionsOfThisBuild() throws IOException {
        String example = Files.readString(ROOT.resolve("gen-durable-docs-samples/src/it/liberty-war/pom.xml"));
        String build = Files.readString(ROOT.resolve("pom.xml"));
        assertThat(tag(example, "gen-durable.version")).isEqualTo(tag(build, "version"));
        assertThat(tag(example, "postgresql.version")).isEqualTo(tag(build, "postgresql.version"));
        assertThat(tag(example, "openliberty.version")).isEqualTo(tag(build, "liberty.runtime.version"));
        assertThat(example).contains("<artifactId>liberty-maven-plugin</artifactId>\n        <version>"
                + tag(build, "liberty-plugin.version") + "</version>");
        assertThat(example).contains("<artifactId>jakarta.jakartaee-api</artifactId>\n      <version>"
                + tag(build, "jakartaee.version") + "</version>");
    }

    /** The text of the first element of that name (for the build's pom, its own version comes first after the parent-less header). */
    private static String tag(String xml, String name) {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</" + Pattern.quote(name) + ">").matcher(
                xml.substring(xml.indexOf("</modelVersion>")));
        assertThat(m.find()).as("<" + name + ">").isTrue();
        return m.group(1);
    }
}
