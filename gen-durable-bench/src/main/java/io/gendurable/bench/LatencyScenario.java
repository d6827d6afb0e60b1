package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * An idle engine: probes inserted at a fixed rate, each stamping when its step started; then
 * waiters parked on signal {@code go}, signalled at a fixed rate, stamping when they woke.
 */
final class LatencyScenario implements Scenario.Body {
    @Override
    public void run(Options o, BenchDb db, Map<String, Object> line) throws Exception {
        int probes = o.rate * o.seconds;
        int waiters = o.waiters;
        line.put("params", Map.of("rate_per_s", o.rate, "seconds", o.seconds, "probes", probes, "waiters", waiters,
                "signal_rate_per_s", o.signalRate));
        BenchFsms.ProbeFsm fsm = new BenchFsms.ProbeFsm(probes, waiters);
        Map<String, Object> results = new LinkedHashMap<>();
        try (Schema schema = Schema.fresh(db, o, "latency"); HikariDataSource ds = db.pool("bench-latency", o.pool);
             Node node = new Node("latency", ds, Engines.worker(o, schema.name()), o.timerThreads, null, fsm).start()) {
            Thread.sleep(1000);  // idle: let the first polls back off
            // 1. inserts at a fixed rate; each probe's step stamps when it started
            long[] insertCall = new long[probes];
            long period = TimeUnit.SECONDS.toNanos(1) / o.rate;
            long start = System.nanoTime();
            for (int i = 0; i < probes; i++) {
                Parallel.parkUntil(start + i * period);
                long s = System.nanoTime();
                fsm.sent.set(i, s);
                node.engine.insert(BenchFsms.ProbeFsm.class, new BenchFsms.Probe(i, false));
                insertCall[i] = System.nanoTime() - s;
            }
            double sendSeconds = (System.nanoTime() - start) / 1e9;
            Parallel.waitFor(() -> allSet(fsm.started, probes), o.stallSeconds);
            long[] startLat = delays(fsm.sent, fsm.started, probes);
            int missing = missing(fsm.started, probes);
            Map<String, Object> ins = new LinkedHashMap<>();
            ins.put("probes", probes);
            ins.put("achieved_rate_per_s", probes / sendSeconds);
            ins.put("insert_to_start_ms", Percentiles.ms(startLat));
            ins.put("insert_call_ms", Percentiles.ms(insertCall));
            ins.put("missing", missing);
            results.put("insert_to_start", ins);

            // 2. park waiters on signal "go", then signal them at a fixed rate
            List<NewInstance> batch = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                batch.add(NewInstance.of(BenchFsms.ProbeFsm.class, new BenchFsms.Probe(i, true)));
            }
            List<Inserted> ids = node.engine.insertAll(batch);
            Parallel.waitFor(() -> BenchDb.queryLong(ds, "SELECT count(*) FROM " + schema.instances()
                    + " WHERE status = 'awaiting_signal'") >= waiters, o.stallSeconds);
            Thread.sleep(1000);  // idle again
            long sPeriod = TimeUnit.SECONDS.toNanos(1) / o.signalRate;
            long[] signalCall = new long[waiters];
            int undelivered = 0;
            start = System.nanoTime();
            for (int i = 0; i < waiters; i++) {
                Parallel.parkUntil(start + i * sPeriod);
                long s = System.nanoTime();
                fsm.signalled.set(i, s);
                SignalResult sr = node.engine.signal(SignalTarget.id(ids.get(i).id()), "go", null);
                signalCall[i] = System.nanoTime() - s;
                undelivered += sr == SignalResult.DELIVERED ? 0 : 1;
            }
            Parallel.waitFor(() -> allSet(fsm.woken, waiters), o.stallSeconds);
            int notWoken = missing(fsm.woken, waiters);
            Map<String, Object> sig = new LinkedHashMap<>();
            sig.put("waiters", waiters);
            sig.put("signal_to_woken_step_ms", Percentiles.ms(delays(fsm.signalled, fsm.woken, waiters)));
            sig.put("signal_call_ms", Percentiles.ms(signalCall));
            sig.put("undelivered", undelivered);
            sig.put("missing", notWoken);
            results.put("signal_to_wake", sig);
            line.put("complete", missing == 0 && notWoken == 0);
            line.put("engine_metrics", Engines.metrics(node.engine.metrics(), null, 0));
        }
        line.put("results", results);
    }

    /** @return {@code to[i] - from[i]}, or {@link Percentiles#MISSING} where {@code to[i]} was never stamped */
    private static long[] delays(AtomicLongArray from, AtomicLongArray to, int n) {
        long[] d = new long[n];
        for (int i = 0; i < n; i++) {
            d[i] = to.get(i) == 0 ? Percentiles.MISSING : to.get(i) - from.get(i);
        }
        return d;
    }

    private static int missing(AtomicLongArray stamps, int n) {
        int missing = 0;
        for (int i = 0; i < n; i++) {
            missing += stamps.get(i) == 0 ? 1 : 0;
        }
        return missing;
    }

    private static boolean allSet(AtomicLongArray stamps, int n) {
        return missing(stamps, n) == 0;
    }
}
