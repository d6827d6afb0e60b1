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
    void aComparisonWithServersGivesTheirRows(@TempDir Path root) throws IOException {
        Path results = Files.createDirectories(root.resolve("gen-durable-bench/results"));
        Files.writeString(results.resolve("c.jsonl"), "{\"scenario\":\"liberty\",\"git\":\"abc1234\",\"started_at\":\"2026-12-04T11:00:00Z\","
                + "\"db\":{\"server_version\":\"15.20\",\"fsync\":\"on\",\"synchronous_commit\":\"on\"},\"jvm\":{\"java\":\"17\",\"cpus\":2}}\n"
                + "{\"comparison\":\"jobs\",\"gen_durable_jobs_per_s\":[30000],\"gen_durable_cdi_defaults_jobs_per_s\":[31000],"
                + "\"db_scheduler_jobs_per_s\":[11000],\"ratio_median\":2.73,\"ratio_cdi_defaults_median\":2.82,\"cdi_defaults_vs_tuned\":1.03,"
                + "\"ceiling_steps_per_s\":41000,\"jobs_vs_ceiling\":0.73,\"cpu_us_per_job_median\":{\"jvm_us\":14.2,\"db_us\":34.4},"
                + "\"servers\":{\"liberty\":{\"jobs_per_s\":25000,\"live_jobs_per_s\":23000,\"live_first_jobs_per_s\":9000,"
                + "\"live_vs_preloaded\":0.92,\"cpu_us_per_job\":{\"jvm_us\":20.5,\"db_us\":36},\"blocking_jobs_per_s\":1500,"
                + "\"blocking_vs_ideal\":0.94,\"fsm_steps_per_s\":20000,\"jobs_vs_tuned\":0.83,\"live_vs_tuned\":0.77,"
                + "\"jvm_cpu_vs_tuned\":1.44,\"db_cpu_vs_tuned\":1.05}}}\n");
        String table = BenchFigures.table(results, "c.jsonl");
        assertThat(table).contains("| bench WAR in Open Liberty, shipped configuration: jobs/s preloaded · live inserts · first live run "
                        + "after deployment | 25,000 · 23,000 · 9,000 | `c.jsonl` abc1234, 2026-12-04 |")
                .contains("| Open Liberty ÷ tuned: preloaded · live · CPU per job, JVM · PostgreSQL | **0.83** · **0.77** · 1.44 · 1.05 |")
                .contains("| Open Liberty: CPU µs per job, JVM · PostgreSQL · blocking steps, jobs/s (÷ ideal) · `fsm` steps/s "
                        + "| 20.5 · 36 · 1,500 (0.94) · 20,000 |");
    }

    @Test
    void numbersAreWrittenAsTheResultsGiveThem() {
        assertThat(BenchFigures.num(29465.1)).isEqualTo("29,465");
        assertThat(BenchFigures.num(624.6)).isEqualTo("624.6");
        assertThat(BenchFigures.num(1.663)).isEqualTo("1.663");
        assertThat(BenchFigures.num(37.0)).isEqualTo("37");
    }
}
