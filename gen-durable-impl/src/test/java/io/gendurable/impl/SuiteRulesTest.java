package io.gendurable.impl;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rules for the project's own tests (CONTRIBUTING.md, "The suite's rules"), checked over the
 * test sources of every module: no test reads database-wide statistics, which other tests, other
 * JVMs of the same build and other builds on the same server move. A test counts what its own
 * engine did (its metrics, a JDBC spy on its connections) and looks only at its own backends in
 * {@code pg_stat_activity} (by pid, by {@code pg_blocking_pids} of its own connection, or by an
 * application name of its own).
 */
class SuiteRulesTest {
    /** Views whose figures are the whole server's or the whole database's. */
    private static final Pattern DATABASE_WIDE = Pattern.compile(
            "pg_stat_(database|bgwriter|checkpointer|wal|io|statements|user_tables|all_tables|sys_tables|user_indexes|all_indexes)"
                    + "|pg_statio_");
    /** What scopes a look at pg_stat_activity to the test's own backends. */
    private static final Pattern OWN_BACKENDS = Pattern.compile("pg_blocking_pids|application_name|\\bpid\\b\\s*(=|IN)|pg_backend_pid");

    static List<Path> sources;

    @BeforeAll
    static void scan() throws IOException {
        Path here = Path.of("").toAbsolutePath();
        Path root = Files.exists(here.resolve("docs/testing.md")) ? here : here.getParent();
        try (Stream<Path> files = Files.walk(root)) {
            sources = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/test/java/"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .toList();
        }
    }

    @Test
    void the_scan_sees_the_test_sources_of_every_module() {
        assertThat(sources).hasSizeGreaterThan(100)
                .anyMatch(p -> p.toString().contains("gen-durable-impl/"))
                .anyMatch(p -> p.toString().contains("gen-durable-testing/"))
                .anyMatch(p -> p.toString().contains("sample-it/"));
    }

    @Test
    void no_test_reads_database_wide_statistics() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path p : sources) {
            if (p.getFileName().toString().equals("SuiteRulesTest.java")) {
                continue;
            }
            List<String> lines = Files.readAllLines(p);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (line.startsWith("//") || line.startsWith("*") || line.startsWith("/*")) {
                    continue;
                }
                if (DATABASE_WIDE.matcher(line).find()) {
                    found.add(p.getFileName() + ":" + (i + 1) + ": " + line);
                }
                if (line.contains("pg_stat_activity")) {
                    // the statement's text: this line and the two after it
                    String statement = String.join(" ", lines.subList(i, Math.min(lines.size(), i + 3)));
                    if (!OWN_BACKENDS.matcher(statement).find()) {
                        found.add(p.getFileName() + ":" + (i + 1) + ": pg_stat_activity not scoped to the test's own backends: " + line);
                    }
                }
            }
        }
        assertThat(found).as("database-wide statistics read by tests").isEmpty();
    }
}
