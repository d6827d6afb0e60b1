package io.gendurable.bench;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.runtime.EngineMetrics;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The engine configuration the options describe, and how the lines report it and its metrics. */
final class Engines {
    private Engines() {
    }

    /** @return the configuration of a node with no queues: it inserts, runs nothing */
    static EngineConfig client(Options o, String schema) {
        return config(o, schema, Map.of());
    }

    /** @return the configuration of a worker: queue {@code default} with {@code --concurrency} */
    static EngineConfig worker(Options o, String schema) {
        return config(o, schema, Map.of("default", o.concurrency));
    }

    private static EngineConfig config(Options o, String schema, Map<String, Integer> queues) {
        return EngineConfig.builder().nodeId("bench-" + ProcessHandle.current().pid()).schema(schema)
                .queues(queues)
                .prefetch(o.prefetch)
                .minDemand(Math.min(o.minDemand, o.concurrency + o.prefetch))
                .poll(Duration.ofMillis(o.pollMs), Duration.ofMillis(o.maxPollMs))
                .startAtInsert(o.startAtInsert)
                .flushers(List.of(new EngineConfig.FlusherConfig(List.of("*"), o.flushBatch,
                        Duration.ofMillis(o.flushDelayMs), o.flushParallelism)))
                .history(new EngineConfig.HistoryConfig(o.history != Options.History.off,
                        o.history == Options.History.state, Duration.ofDays(7)))
                .build();
    }

    /** @return a line's {@code config}: the worker's configuration, the pool, the warm-up */
    static Map<String, Object> describe(Options o) {
        EngineConfig c = worker(o, "bench");
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("queues", c.node().queues());
        m.put("prefetch", c.poll().prefetch());
        m.put("min_demand", c.poll().minDemand());
        m.put("poll_ms", c.poll().interval().toMillis());
        m.put("start_at_insert", c.poll().startAtInsert());
        m.put("history", o.history.name());
        m.put("max_poll_ms", c.poll().maxInterval().toMillis());
        m.put("flusher_max_batch", c.flushers().get(0).maxBatch());
        m.put("flusher_max_delay_ms", c.flushers().get(0).maxDelay().toMillis());
        m.put("lease_ttl_s", c.lease().ttl().toSeconds());
        m.put("heartbeat_s", c.lease().heartbeatInterval().toSeconds());
        m.put("poke", c.poke().transport().name().toLowerCase());
        m.put("hikari_pool", o.pool);
        m.put("timer_threads", o.timerThreads);
        m.put("step_executor", "cached thread pool");
        m.put("warmup_jobs", o.warmup);
        return m;
    }

    /**
     * @param p       the run's progress (flush timings), or null
     * @param seconds the run's wall time, for the rates (0: none)
     * @return a line's {@code engine_metrics}
     */
    static Map<String, Object> metrics(EngineMetrics m, Progress p, double seconds) {
        Map<String, Object> r = new LinkedHashMap<>();
        long picks = m.picks.sum();
        long picked = m.picked.sum();
        long flushes = m.flushes.sum();
        long outcomes = m.flushedOutcomes.sum();
        long inFlush = m.picksInFlush.sum();
        r.put("picks", picks);
        r.put("picks_in_flush", inFlush);
        r.put("picked", picked);
        r.put("started_at_insert", m.startedAtInsert.sum());
        r.put("rows_per_pick", picks == 0 ? null : (double) picked / picks);
        r.put("flushes", flushes);
        r.put("flushed_outcomes", outcomes);
        r.put("outcomes_per_flush", flushes == 0 ? null : (double) outcomes / flushes);
        if (seconds > 0) {
            r.put("picks_per_s", picks / seconds);
            r.put("flushes_per_s", flushes / seconds);
        }
        if (p != null && flushes > 0) {
            r.put("flush_ms_mean", p.flushNanos() / 1e6 / flushes);
            r.put("max_outcomes_per_flush", p.maxFlushOutcomes());
        }
        long steps = m.steps.values().stream().mapToLong(LongAdder::sum).sum();
        r.put("step_code_us_mean", steps == 0 ? null : m.stepNanos.sum() / 1e3 / steps);
        // claims of their own plus flushes: the commits the engine paid, per step
        r.put("transactions_per_step", steps == 0 ? null : (double) (picks - inFlush + flushes) / steps);
        r.put("stale", m.stale.sum());
        r.put("flush_errors", m.flushErrors.sum());
        r.put("loop_errors", m.loopErrors.sum());
        r.put("contended", m.contended.sum());
        r.put("gate_throttled", m.gateThrottled.sum());
        r.put("rate_throttled", m.rateThrottled.sum());
        return r;
    }
}
