package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps the harness working without benchmarking during the build: the {@code jobs} scenario and
 * the db-scheduler baseline with N = 200, on the tests' database ({@code GENDURABLE_TEST_DB_URL},
 * else an embedded server with fsync off: a smoke test measures nothing).
 */
class BenchSmokeTest {
    static BenchDb db;

    @BeforeAll
    static void up() {
        Bench.quietLogs();
        db = BenchDb.open(System.getenv("GENDURABLE_TEST_DB_URL"), false);
    }

    @AfterAll
    static void down() {
        db.close();
    }

    @Test
    void jobsScenarioPrintsOneCompleteJsonLine() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Options o = Options.parse(new String[]{"--n=200", "--repeat=1", "--warmup=0", "--concurrency=16", "--prefetch=16",
                "--pool=4", "--stall-seconds=30"});
        boolean ok = new Bench(o, db, new PrintStream(buf, true, StandardCharsets.UTF_8)).run(Scenario.named("jobs").orElseThrow());
        String out = buf.toString(StandardCharsets.UTF_8).strip();
        assertTrue(ok, out);
        assertEquals(1, out.lines().count(), out);
        assertTrue(out.startsWith("{\"scenario\":\"jobs\""), out);
        assertTrue(out.contains("\"jobs\":200,"), out);
        assertTrue(out.contains("\"rows_done\":200"), out);
        assertTrue(out.contains("\"synchronous_commit\":"), out);
    }

    @Test
    void dbSchedulerBaselineBurnsDownItsTasks() throws Exception {
        try (HikariDataSource ds = db.pool("smoke-db-scheduler", 8)) {
            Map<String, Object> r = DbSchedulerJobs.burnDown(ds, 200, 4, 0.5, 3.0, 30);
            assertEquals(Boolean.TRUE, r.get("complete"), r.toString());
            assertEquals(200L, r.get("jobs"), r.toString());
        }
    }

    @Test
    void jsonIsEscaped() {
        assertEquals("{\"a\":\"x\\\"y\\n\"}", Json.line(Map.of("a", "x\"y\n")));
        assertEquals("[1,2.500,null,12345.7]", Json.line(java.util.Arrays.asList(1, 2.5, null, 12345.67)));
    }
}
