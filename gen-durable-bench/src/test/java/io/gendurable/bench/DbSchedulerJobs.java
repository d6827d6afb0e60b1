package io.gendurable.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.event.AbstractSchedulerListener;
import com.github.kagkarlsson.scheduler.task.ExecutionComplete;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariDataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The side-by-side baseline of issue 7: db-scheduler burning down N pre-inserted no-op one-time
 * tasks in its best mode (lock-and-fetch, 32 threads), on the same database as the bench, its
 * {@code scheduled_tasks} table in a schema of its own. Prints one JSON object, shaped like the
 * bench's {@code jobs} line. In test sources: db-scheduler is a test-scoped dependency of the
 * bench module only.
 *
 * <pre>
 * BENCH_MAIN=io.gendurable.bench.DbSchedulerJobs gen-durable-bench/bench.sh [jdbc-url] [--n=20000] [--threads=32]
 * </pre>
 */
public final class DbSchedulerJobs {
    private static final String DDL = """
            CREATE TABLE %1$s.scheduled_tasks (
              task_name text NOT NULL,
              task_instance text NOT NULL,
              task_data bytea,
              execution_time timestamp with time zone NOT NULL,
              picked boolean NOT NULL,
              picked_by text,
              last_success timestamp with time zone,
              last_failure timestamp with time zone,
              consecutive_failures int,
              last_heartbeat timestamp with time zone,
              version bigint NOT NULL,
              priority smallint,
              PRIMARY KEY (task_name, task_instance)
            );
            CREATE INDEX execution_time_idx ON %1$s.scheduled_tasks (execution_time);
            CREATE INDEX last_heartbeat_idx ON %1$s.scheduled_tasks (last_heartbeat);
            CREATE INDEX priority_execution_time_idx ON %1$s.scheduled_tasks (priority DESC, execution_time ASC);
            """;

    private DbSchedulerJobs() {
    }

    /** The baseline's command line: the bench's spelling for what the two share. */
    @Command(name = "DbSchedulerJobs", customSynopsis = "BENCH_MAIN=io.gendurable.bench.DbSchedulerJobs bench.sh"
            + " [jdbc-url] [--option=value]...", usageHelpWidth = 120)
    static final class Args {
        @Option(names = "--db", description = "JDBC URL (else $" + BenchDb.URL_ENV + ", else an embedded PostgreSQL)")
        String db;
        @Option(names = "--n", description = "tasks to burn down [${DEFAULT-VALUE}]")
        int n = 20_000;
        @Option(names = "--threads", description = "db-scheduler's threads [${DEFAULT-VALUE}]")
        int threads = 32;
        @Option(names = "--warmup", description = "no-op tasks burnt first, in rounds of n [${DEFAULT-VALUE}]")
        int warmup = 100_000;
        @Option(names = "--repeat", description = "measured runs; the median is reported [${DEFAULT-VALUE}]")
        int repeat = 3;
        @Option(names = "--pool", description = "Hikari pool size [threads + 4]")
        Integer pool;
        @Option(names = "--lower", description = "lock-and-fetch lower limit [${DEFAULT-VALUE}]")
        double lower = 0.5;
        @Option(names = "--upper", description = "lock-and-fetch upper limit [${DEFAULT-VALUE}]")
        double upper = 3.0;
        @Option(names = "--stall-seconds", description = "give up when nothing completes for this long [${DEFAULT-VALUE}]")
        int stallSeconds = 60;
        @Option(names = "--fsync", arity = "1", defaultValue = "on", description = "embedded server only [${DEFAULT-VALUE}]")
        boolean fsync;
        @Parameters(paramLabel = "jdbc-url", arity = "0..1", description = "the same as --db")
        String url;
    }

    public static void main(String[] argv) throws Exception {
        Bench.quietLogs();
        Args a = new Args();
        try {
            var cmd = Options.command(a);
            cmd.parseArgs(argv);
            if (a.url != null && !a.url.startsWith("jdbc:")) {
                throw new picocli.CommandLine.ParameterException(cmd, "not a JDBC URL: " + a.url);
            }
        } catch (picocli.CommandLine.ParameterException e) {
            System.err.println(e.getMessage() + "\n" + e.getCommandLine().getUsageMessage());
            System.exit(2);
        }
        String url = a.url != null ? a.url : a.db;
        int n = a.n;
        int threads = a.threads;
        int warmup = a.warmup;
        int pool = a.pool != null ? a.pool : threads + 4;
        double lower = a.lower;
        double upper = a.upper;
        int stall = a.stallSeconds;
        int repeat = a.repeat;
        boolean fsync = a.fsync;
        long t0 = System.nanoTime();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("scenario", "jobs");
        json.put("engine", "db-scheduler " + Machine.version("db-scheduler"));
        json.put("git", System.getProperty("bench.git", "unknown"));
        json.put("started_at", Instant.now().toString());
        json.put("load_avg_before", Machine.loadAverage());
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("n", n);
        params.put("threads", threads);
        params.put("polling", "lock-and-fetch(" + lower + ", " + upper + ")");
        params.put("hikari_pool", pool);
        params.put("warmup_jobs", warmup);
        params.put("repeat", repeat);
        json.put("params", params);
        boolean ok;
        try (BenchDb db = BenchDb.open(url, fsync); HikariDataSource ds = db.pool("db-scheduler", pool)) {
            json.put("db", db.describe(ds));
            if (warmup > 0) {
                // the same regime as the bench's: rounds of at most n, each on a fresh table and scheduler
                int round = Math.max(1, Math.min(warmup, n));
                Bench.log("db-scheduler warm-up: " + warmup + " no-op tasks in rounds of " + round);
                List<Object> rates = new ArrayList<>();
                for (int done = 0; done < warmup; done += round) {
                    rates.add(burnDown(ds, Math.min(round, warmup - done), threads, lower, upper, stall).get("jobs_per_s"));
                }
                json.put("warmup", Map.of("jobs", warmup, "rounds_jobs_per_s", rates));
            }
            List<Map<String, Object>> runs = new ArrayList<>();
            for (int i = 0; i < repeat; i++) {
                Bench.log("db-scheduler: " + n + " no-op tasks, " + threads + " threads, lock-and-fetch (run "
                        + (i + 1) + " of " + repeat + ")");
                Map<String, Object> r = burnDown(ds, n, threads, lower, upper, stall);
                Bench.log(String.format(java.util.Locale.ROOT, "db-scheduler: %,.0f/s  cpu %s",
                        (double) r.get("jobs_per_s"), r.get("cpu")));
                runs.add(r);
            }
            ok = BurnDown.allComplete(runs);
            json.put("complete", ok);
            json.put("results", BurnDown.median(runs, "jobs"));
        }
        json.put("jvm", Machine.jvm());
        json.put("elapsed_s", (System.nanoTime() - t0) / 1e9);
        System.out.println(Json.line(json));
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    static Map<String, Object> burnDown(HikariDataSource ds, int n, int threads, double lower, double upper,
                                        int stallSeconds) throws Exception {
        String schema = BenchDb.newSchema("dbscheduler");
        String table = schema + ".scheduled_tasks";
        BenchDb.exec(ds, "CREATE SCHEMA " + schema);
        BenchDb.exec(ds, String.format(DDL, schema));
        Map<String, Object> r = new LinkedHashMap<>();
        try {
            OneTimeTask<Void> noop = Tasks.oneTime("noop").execute((instance, ctx) -> {
            });
            SchedulerClient client = SchedulerClient.Builder.create(ds, noop).tableName(table).build();
            long l0 = System.nanoTime();
            for (int from = 0; from < n; from += 1000) {
                List<TaskInstance<?>> batch = new ArrayList<>(1000);
                for (int i = from; i < Math.min(n, from + 1000); i++) {
                    batch.add(noop.instance("job-" + i));
                }
                client.scheduleBatch(batch, Instant.now());
            }
            r.put("preinsert_rows_per_s", n * 1e9 / (System.nanoTime() - l0));
            BenchDb.exec(ds, "ANALYZE " + table);

            Progress progress = new Progress(k -> true);
            progress.arm(n);
            Scheduler scheduler = Scheduler.create(ds, noop).tableName(table).threads(threads)
                    .pollUsingLockAndFetch(lower, upper)
                    .addSchedulerListener(new AbstractSchedulerListener() {
                        @Override
                        public void onExecutionComplete(ExecutionComplete complete) {
                            // called after the completion (the row's delete) committed
                            if (complete.getResult() == ExecutionComplete.Result.OK) {
                                progress.tick();
                            }
                        }
                    })
                    .build();
            CpuSplit cpu = CpuSplit.now(ds);
            long t0 = System.nanoTime();
            scheduler.start();
            boolean complete = progress.await(stallSeconds);
            r.putAll(BurnDown.rates(progress, t0, n, "jobs"));
            r.put("cpu", cpu.since());
            r.put("heap_used_mb", Machine.heapUsedMb());
            scheduler.stop();
            long left = BenchDb.queryLong(ds, "SELECT count(*) FROM " + table);
            r.put("rows_left", left);
            r.put("complete", complete && left == 0);
        } finally {
            BenchDb.exec(ds, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
        return r;
    }
}
