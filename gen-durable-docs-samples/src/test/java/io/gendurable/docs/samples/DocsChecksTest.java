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

    @Test
    void aSchemaNameNoMigrationCreatesIsReported(@TempDir Path root) throws IOException {
        Path migrations = Files.createDirectories(root.resolve("gen-durable-impl/src/main/resources/db/gendurable"));
        Files.writeString(migrations.resolve("V3__ops.sql"), "CREATE INDEX gen_durable_ops_status ON gen_durable (status, id);\n"
                + "CREATE INDEX gen_durable_ops_fsm ON gen_durable (fsm, id);\nCREATE INDEX gen_durable_gc ON gen_durable (updated_at);\n");
        Files.writeString(migrations.resolve("V10__gc.sql"), "-- gen_durable_gc goes: gen_durable_gc_done replaces it\n"
                + "CREATE INDEX gen_durable_gc_done ON gen_durable (updated_at);\nDROP INDEX gen_durable_gc;\n");
        Map<String, String> texts = Map.of("docs/i.md", "| `gen_durable_ops_status`, `_fsm`, `_inserted` | `gen_durable` |\n`gen_durable_pick`, "
                + "`gen_durable_gc_done`, `gen_durable_gc`\n");
        assertThat(DocsChecks.schemaNames(root, texts)).containsExactly(
                "docs/i.md:1: names gen_durable_ops_inserted, which the migrations do not leave",
                "docs/i.md:2: names gen_durable_pick, which the migrations do not leave",
                "docs/i.md:2: names gen_durable_gc, which the migrations do not leave");
    }

    @Test
    void aQuotedTypeMemberOrSignatureTheCodeDoesNotDeclareIsReported(@TempDir Path root) throws IOException {
        Path src = Files.createDirectories(root.resolve("m/src/main/java/p"));
        Files.writeString(src.resolve("Limiter.java"), "package p;\n\ninterface Limiter {\n"
                + "    List<Long> admit(List<Row> candidates, String queue);\n\n    void credit(Map<String, Integer> slots);\n\n"
                + "    record Held(long id, String key) {\n    }\n\n    int MAX = 3;\n}\n");
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/internals.md"), "# I\n\n`Limiter.admit(candidates, queue)`, `Limiter.credit`, "
                + "`Limiter.Held#key`, `Limiter.MAX`, `credit(slots)`, `unnest(…)`.\n\n"
                + "```\n`Gone.x()`\n```\n`Limiter.admit(candidates)`, `Limiter.renew`, `Scheduler`, `renew(queue, held)`.\n");
        assertThat(DocsChecks.quotedSignatures(root, "docs/internals.md")).containsExactlyInAnyOrder(
                "docs/internals.md:8: quotes `Limiter.admit(candidates)`, which Limiter does not declare with 1 parameters",
                "docs/internals.md:8: quotes `Limiter.renew`, which Limiter does not declare",
                "docs/internals.md:8: quotes `Scheduler`, a type the code does not declare",
                "docs/internals.md:8: quotes `renew(queue, held)`, a method no source declares");
    }

    @Test
    void anEnginePackageMissingFromTheInternalsMapIsReported(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("gen-durable-impl/src/main/java/io/gendurable/impl/claim"));
        Files.createDirectories(root.resolve("gen-durable-impl/src/main/java/io/gendurable/impl/keys"));
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/internals.md"), "# I\n\n| Package | What |\n|---|---|\n| `claim` | the claim |\n");
        assertThat(DocsChecks.unmappedPackages(root))
                .containsExactly("docs/internals.md: 'Where things are' has no row for the package impl.keys");
    }
}
