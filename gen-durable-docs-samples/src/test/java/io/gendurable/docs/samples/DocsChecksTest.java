package io.gendurable.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** README.md and docs/ hold up to the checks of {@link DocsChecks}; each check catches what it should. */
class DocsChecksTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void theReadmeAndThePagesPassEveryCheck() {
        assertThat(DocsChecks.problems(ROOT)).isEmpty();
    }

    @Test
    void aPageMissingFromTheReadmesDocumentationListOrFromTheIndexIsReported(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/index.md"), "| [A](a.md) | … |\n");
        Files.writeString(root.resolve("docs/a.md"), "# A\n");
        Files.writeString(root.resolve("docs/b.md"), "# B\n");
        Files.writeString(root.resolve("README.md"),
                "# R\nSee [b](docs/b.md).\n\n## Documentation\n\n- [Index](docs/index.md)\n- [A](docs/a.md)\n\n## Other\n");
        assertThat(DocsChecks.unlistedPages(root)).containsExactly(
                "README.md: the Documentation section does not link docs/b.md",
                "docs/index.md: does not link b.md");
    }

    @Test
    void anInternalTrackingNumberIsReported() {
        assertThat(DocsChecks.trackingNumbers("p.md", "not the 10× issue 7 asks for; see defect #3"))
                .hasSize(2).first().asString().contains("'issue 7'");
        assertThat(DocsChecks.trackingNumbers("p.md", "a known issue; https://github.com/o/r/issues/12")).isEmpty();
    }

    @Test
    void anAnnouncedCountThatTheListDoesNotMatchIsReported() {
        assertThat(DocsChecks.miscounts("p.md", "It needs the same five things as in Liberty: CDI, JSON-B, MicroProfile "
                + "Config, the executors, a registry, and two DataSources on one database. Metrics is optional."))
                .singleElement().asString().contains("announces five (5) but lists 6");
        assertThat(DocsChecks.miscounts("p.md", "It needs six things: A, B (one, two), C, D, E and F."))
                .isEmpty();
        assertThat(DocsChecks.miscounts("p.md", "Three ways:\n\n- one\n  more of one\n- two\n- three\n\nAfter."))
                .isEmpty();
        assertThat(DocsChecks.miscounts("p.md", "Two things remain yours:\n\n- one\n- two\n- three\n"))
                .singleElement().asString().contains("lists 3");
        assertThat(DocsChecks.miscounts("p.md", "Do not mix the two ways on one database: with A, B, C and D."))
                .isEmpty();
    }

    @Test
    void differentLibertySizesAreReported() {
        Map<String, String> texts = new LinkedHashMap<>();
        texts.put("README.md", "The Open Liberty zip (downloaded once, about 350 MB).\n\nThe heap: 34 MB.\n\n"
                + "The first run unpacks the Liberty runtime (about 400 MB).\n");
        texts.put("docs/g.md", "Downloads the Open Liberty runtime (about 350 MB).\n");
        assertThat(DocsChecks.libertySizes(texts)).singleElement().asString()
                .contains("README.md:5").contains("[400 MB]").contains("[350 MB]");
        texts.put("README.md", "The Open Liberty zip (a 350 MB download; about 400 MB unpacked).\n");
        texts.put("docs/g.md", "The Liberty runtime (a 350 MB\ndownload; about 400 MB unpacked).\n");
        assertThat(DocsChecks.libertySizes(texts)).isEmpty();
    }

    @Test
    void aLinkToAMissingFileOrHeadingIsReported(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("README.md"), "# R\n\nSee [a](docs/a.md#one-hot-k--1-key) and [b](docs/b.md).\n");
        Files.writeString(root.resolve("docs/a.md"), "# A\n\n## One hot K = 1 key\n\n```\n# not a heading\n```\n"
                + "[x](#not-a-heading) [y](a.md#a) [z](https://example.com/#q)\n");
        assertThat(DocsChecks.brokenLinks(root)).containsExactly(
                "README.md:3: links docs/b.md, which does not exist",
                "docs/a.md:8: links #not-a-heading, a heading docs/a.md does not have");
    }
}
