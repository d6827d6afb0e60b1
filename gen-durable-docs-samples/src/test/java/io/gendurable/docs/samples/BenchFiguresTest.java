package io.gendurable.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The figures table of docs/performance.md is what {@link BenchFigures} makes of the committed raw results. */
class BenchFiguresTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void theFiguresTableIsWhatTheCommittedResultsGive() {
        assertThat(BenchFigures.problems(ROOT)).isEmpty();
    }

    @Test
    void aFigureTypedOverIsReported(@TempDir Path root) throws IOException {
        Path results = Files.createDirectories(root.resolve("gen-durable-bench/results"));
        Files.writeString(results.resolve("f.jsonl"), "{\"scenario\":\"hotkey\",\"git\":\"abc1234\",\"started_at\":\"2026-12-02T11:00:00Z\","
                + "\"db\":{\"server_version\":\"15.20 (Debian)\",\"fsync\":\"on\",\"synchronous_commit\":\"on\"},"
                + "\"jvm\":{\"java\":\"17\",\"cpus\":2},\"results\":{\"ordinary_ratio\":1.069}}\n");
        Files.createDirectories(root.resolve("docs"));
        String table = BenchFigures.table(results, "f.jsonl");
        assertThat(table).contains("| `hotkey`: ordinary jobs beside one hot K = 1 key ÷ alone | **1.069** | `f.jsonl` abc1234, 2026-12-02 |")
                .contains("| Machine | 2 CPUs, Java 17, PostgreSQL 15.20 (fsync on, synchronous_commit on) | every source |");
        Files.writeString(root.resolve("docs/performance.md"), "# P\n<!-- figures: f.jsonl -->\n" + table + "<!-- end figures -->\n");
        assertThat(BenchFigures.problems(root)).isEmpty();
        Files.writeString(root.resolve("docs/performance.md"),
                "# P\n<!-- figures: f.jsonl -->\n" + table.replace("1.069", "1.5") + "<!-- end figures -->\n");
        assertThat(BenchFigures.problems(root)).singleElement().asString().contains("row 3").contains("**1.5**").contains("**1.069**");
    }

    @Test
    void numbersAreWrittenAsTheResultsGiveThem() {
        assertThat(BenchFigures.num(29465.1)).isEqualTo("29,465");
        assertThat(BenchFigures.num(624.6)).isEqualTo("624.6");
        assertThat(BenchFigures.num(1.663)).isEqualTo("1.663");
        assertThat(BenchFigures.num(37.0)).isEqualTo("37");
    }
}
