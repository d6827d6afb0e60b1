package io.gendurable.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pages of docs/ show the compiled samples verbatim, and every Java block is one of them. */
class DocsIncludesTest {

    private static final Path DOCS = Path.of("../docs");
    private static final Path SAMPLES = Path.of("src/main/java");

    /**
     * Pages other helpers own, whose plain Java blocks are tolerated until they are moved into
     * includes; their include blocks, if any, are still checked.
     */
    private static final Set<String> NOT_YET_INCLUDED = Set.of();

    @Test
    void everyPageShowsItsIncludedSamplesVerbatimAndHasNoOtherJavaBlock() {
        assertThat(DocIncludes.problems(DOCS, NOT_YET_INCLUDED)).isEmpty();
    }

    @Test
    void everySnippetOfTheSamplesIsIncludedBySomePage() {
        Set<String> unused = new TreeSet<>(DocIncludes.defined(SAMPLES));
        unused.removeAll(DocIncludes.included(DOCS));
        assertThat(unused).as("snippets no page includes").isEmpty();
    }

    @Test
    void aBlockThatDiffersFromItsSourceIsReported(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("A.java"), "class A {\n    // tag::x[]\n    int a = 1;\n    // end::x[]\n}\n");
        Files.writeString(dir.resolve("page.md"), "# P\n<!-- include: A.java#x -->\n```java\nint a = 2;\n```\n<!-- end include -->\n");
        assertThat(DocIncludes.problems(dir, Set.of())).singleElement().asString().contains("differs");

        Files.writeString(dir.resolve("page.md"), DocIncludes.render(dir.resolve("page.md")));
        assertThat(Files.readString(dir.resolve("page.md"))).contains("```java\nint a = 1;\n```");
        assertThat(DocIncludes.problems(dir, Set.of())).isEmpty();
    }

    @Test
    void aJavaBlockOutsideAnIncludeIsReportedUnlessThePageIsExcluded(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("page.md"), "# P\n```java\nint a = 2;\n```\n");
        assertThat(DocIncludes.problems(dir, Set.of())).singleElement().asString().contains("not an include");
        assertThat(DocIncludes.problems(dir, Set.of("page.md"))).isEmpty();
    }

    @Test
    void aMissingTagIsReported(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("A.java"), "class A {}\n");
        Files.writeString(dir.resolve("page.md"), "<!-- include: A.java#nope -->\n```java\n```\n<!-- end include -->\n");
        assertThat(DocIncludes.problems(dir, Set.of())).singleElement().asString().contains("tag::nope[]");
    }

    @Test
    void nestedTagLinesAreDroppedAndIndentationRemoved(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("A.java"),
                "class A {\n    // tag::outer[]\n    void f() {\n        // tag::inner[]\n        g();\n        // end::inner[]\n    }\n    // end::outer[]\n}\n");
        assertThat(DocIncludes.snippet(dir.resolve("A.java"), "outer")).isEqualTo("void f() {\n    g();\n}\n");
        assertThat(DocIncludes.snippet(dir.resolve("A.java"), "inner")).isEqualTo("g();\n");
    }
}
