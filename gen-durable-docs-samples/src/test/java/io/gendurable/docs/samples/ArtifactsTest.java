package io.gendurable.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a team adopting the project looks for beside the code: the license, the changelog with its
 * version policy, and a BOM that manages every published artifact (a module that is published
 * but missing from the BOM would need a version of its own in users' builds).
 */
class ArtifactsTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

    @Test
    void theLicenseAndTheChangelogWithItsVersionPolicyExist() throws IOException {
        assertThat(Files.readString(ROOT.resolve("LICENSE"))).contains("Apache License").contains("Version 2.0, January 2004");
        assertThat(Files.readString(ROOT.resolve("CHANGELOG.md")))
                .contains("## Versions and what they may change").contains("**Patch**").contains("**Minor**")
                .contains("**Schema migrations**").containsPattern("\n## \\[\\d+\\.\\d+\\.\\d+]");
        assertThat(Files.readString(ROOT.resolve("pom.xml"))).contains("<name>Apache-2.0</name>");
        assertThat(Files.readString(ROOT.resolve("gen-durable-bom/pom.xml"))).contains("<name>Apache-2.0</name>");
    }

    @Test
    void theBomManagesEveryPublishedModule() throws IOException {
        String bom = Files.readString(ROOT.resolve("gen-durable-bom/pom.xml"));
        List<String> published = new ArrayList<>();
        Matcher m = MODULE.matcher(Files.readString(ROOT.resolve("pom.xml")));
        while (m.find()) {
            String pom = Files.readString(ROOT.resolve(m.group(1)).resolve("pom.xml"));
            if (!pom.contains("<maven.deploy.skip>true</maven.deploy.skip>") && !m.group(1).equals("gen-durable-bom")) {
                published.add(m.group(1));
            }
        }
        assertThat(published).contains("gen-durable-api", "gen-durable-impl", "gen-durable-testing", "gen-durable-admin");
        for (String module : published) {
            assertThat(bom).as("gen-durable-bom manages " + module).contains("<artifactId>" + module + "</artifactId>");
        }
    }
}
