package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.GenDurable;
import io.gendurable.NewInstance;
import io.gendurable.impl.cdi.DurableBean;
import io.gendurable.impl.cdi.GenDurableExtension;
import io.gendurable.impl.runtime.EngineMetrics;
import io.smallrye.metrics.legacyapi.LegacyMetricsExtension;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The {@code jobs} burn-down with the engine as users get it: booted by Weld SE through the
 * engine's CDI extension, with MicroProfile Config (SmallRye) and MicroProfile Metrics (SmallRye
 * Metrics), the engine's own pool and executors, and an empty configuration but the DataSource
 * ({@code gendurable.jdbc.url}) and the schema that isolates the run. No queue, batch, delay or
 * pool setting: the defaults. Each run boots a container on a fresh schema, inserts {@code --n}
 * no-op jobs with one {@code insertAll} through the injected {@link GenDurable}, and times from
 * that call's return (the rows' commit) to the last committed outcome; the CPU split covers the
 * same span. With a warm-up ({@code --warmup} above 0) one unmeasured run goes first.
 */
final class CdiJobsScenario implements Scenario.Body {
    private static final String[] KEYS = {"gendurable.jdbc.url", "gendurable.schema"};

    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        line.put("params", Map.of("n", o.n, "repeat", o.repeat));
        List<Map<String, Object>> runs = new ArrayList<>();
        if (o.warmup > 0) {
            // one unmeasured container first, as the tuned engine has its warm-up: the CDI path's
            // own code (the container's proxies, the metrics, the engine's pool) is JIT-cold until then
            line.put("cdi_warmup_jobs_per_s", once(o, db).get("events_per_s"));
        }
        for (int r = 0; r < o.repeat; r++) {
            runs.add(once(o, db));
        }
        Map<String, Object> median = BurnDown.median(runs, "jobs");
        line.put("engine_metrics", median.remove("engine_metrics"));
        line.put("results", median);
        line.put("complete", BurnDown.allComplete(runs));
        line.put("config_override", describe());
    }

    /** @return what the line's {@code config} says instead of the tuned engine's settings */
    static Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("config", "defaults via CDI");
        m.put("container", "Weld SE " + org.jboss.weld.environment.se.Weld.class.getPackage().getImplementationVersion()
                + ", SmallRye Config, SmallRye Metrics");
        m.put("keys_set", List.of(KEYS));
        m.put("queues", io.gendurable.impl.config.ConfigKeys.QUEUES.defaultValue());
        m.put("prefetch", io.gendurable.impl.config.ConfigKeys.PREFETCH.defaultValue());
        m.put("min_demand", io.gendurable.impl.config.ConfigKeys.MIN_DEMAND.defaultValue());
        m.put("flusher_max_batch", io.gendurable.impl.config.ConfigKeys.FLUSHER_MAX_BATCH.defaultValue());
        m.put("flusher_max_delay_ms", io.gendurable.impl.config.ConfigKeys.FLUSHER_MAX_DELAY.defaultValue().toMillis());
        m.put("hikari_pool", "the engine's own, sized by the engine (gendurable.jdbc.url)");
        m.put("step_executor", "the engine's own cached pool");
        return m;
    }

    private Map<String, Object> once(Options o, BenchDb db) throws Exception {
        Map<String, Object> r = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, "jobscdi"); HikariDataSource admin = db.pool("bench-cdi-admin", 2)) {
            System.setProperty("gendurable.jdbc.url", db.url());
            if (!o.sessionDb.isBlank()) {
                System.setProperty("gendurable.session.jdbc.url", o.sessionDb);
            }
            System.setProperty("gendurable.schema", schema.name());
            ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig());
            long tBoot = System.nanoTime();
            try (WeldContainer c = new Weld("bench-" + UUID.randomUUID()).disableDiscovery()
                    .addExtension(new GenDurableExtension()).addExtension(new LegacyMetricsExtension())
                    .addBeanClasses(BenchFsms.NoopJob.class).initialize()) {
                GenDurable durable = c.select(GenDurable.class).get();
                EngineMetrics metrics = c.select(DurableBean.class).get().engine().metrics();
                r.put("boot_s", (System.nanoTime() - tBoot) / 1e9);
                List<NewInstance> rows = new ArrayList<>(o.n);
                for (int i = 0; i < o.n; i++) {
                    rows.add(BenchFsms.noop(i));
                }
                Progress progress = new Progress(kind -> true);
                progress.arm(o.n);
                long base = metrics.flushedOutcomes.sum();
                long tInsert = System.nanoTime();
                durable.insertAll(rows);
                long t0 = System.nanoTime();
                // the CPU of the burn-down only, as the tuned jobs scenario measures it (the insert is
                // outside both): the engine starts on the rows as soon as they commit
                CpuSplit cpu = CpuSplit.now(admin);
                CpuSplit.Threads threads = CpuSplit.Threads.now();
                r.put("insert_s", (t0 - tInsert) / 1e9);
                Thread watcher = new Thread(() -> watch(metrics, base, progress, o.n), "bench-cdi-watch");
                watcher.setDaemon(true);
                watcher.start();
                boolean complete = progress.await(o.stallSeconds);
                watcher.interrupt();
                r.putAll(BurnDown.rates(progress, t0, o.n, "events"));
                Map<String, Object> split = cpu.since();
                r.put("cpu", split);
                r.put("cpu_us_each", CeilingScenario.perStep(split, o.n));
                r.put("jvm_threads_cpu_s", CpuSplit.Threads.now().since(threads));
                r.put("complete", complete);
                r.put("engine_metrics", Engines.metrics(metrics, null, (double) r.get("seconds")));
            } finally {
                for (String k : KEYS) {
                    System.clearProperty(k);
                }
                ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig());
            }
            long done = BenchDb.queryLong(admin, "SELECT count(*) FROM " + schema.instances() + " WHERE status = 'done'");
            r.put("rows_done", done);
            if (done != o.n) {
                r.put("complete", false);
            }
        }
        Bench.log(String.format(Locale.ROOT, "jobs-cdi: %,.0f/s  cpu %s  jvm threads %s",
                (double) r.get("events_per_s"), r.get("cpu"), r.get("jvm_threads_cpu_s")));
        return r;
    }

    /** Turns the engine's committed-outcome counter into progress ticks (every no-op job commits one outcome). */
    private static void watch(EngineMetrics metrics, long base, Progress progress, long target) {
        long seen = 0;
        while (seen < target && !Thread.currentThread().isInterrupted()) {
            long now = Math.min(target, metrics.flushedOutcomes.sum() - base);
            for (; seen < now; seen++) {
                progress.tick();
            }
            java.util.concurrent.locks.LockSupport.parkNanos(200_000);
        }
    }
}
