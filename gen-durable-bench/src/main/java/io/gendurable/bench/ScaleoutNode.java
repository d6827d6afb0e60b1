package io.gendurable.bench;

import io.gendurable.impl.cdi.DurableBean;
import io.gendurable.impl.cdi.GenDurableExtension;
import io.gendurable.impl.runtime.EngineMetrics;
import io.smallrye.metrics.legacyapi.LegacyMetricsExtension;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One engine JVM of the {@code scaleout} scenario, a child process of the bench: boots the engine
 * the way {@code jobs-cdi} does (Weld SE, the engine's CDI extension, SmallRye Config and
 * Metrics, the engine's own pool and executors) with the default configuration but the
 * DataSource, the schema, this node's identity and its queue's concurrency, then talks to the
 * bench on standard input and output, one line each:
 * <pre>
 * → ready &lt;boot seconds&gt;            once booted (the queue is empty: nothing to run yet)
 * → p &lt;outcomes committed&gt;          every 50 ms
 * ← mark                              the warm-up is over
 * → mark {json}                       this node's counters so far
 * ← stop                              the bench saw the last job committed
 * → metrics {json}                    this node's counters; then the container closes and the JVM exits
 * </pre>
 * {@code java … ScaleoutNode <jdbc-url> <schema> <node-id> <concurrency>}
 */
public final class ScaleoutNode {
    private ScaleoutNode() {
    }

    public static void main(String[] args) throws Exception {
        Bench.quietLogs();
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);  // nothing but the protocol on stdout
        System.setProperty("gendurable.jdbc.url", args[0]);
        System.setProperty("gendurable.schema", args[1]);
        System.setProperty("gendurable.node-id", args[2]);
        System.setProperty("gendurable.queues", "default:" + Integer.parseInt(args[3]));
        long t0 = System.nanoTime();
        AtomicBoolean stop = new AtomicBoolean();
        try (WeldContainer c = new Weld("scaleout-" + args[2]).disableDiscovery()
                .addExtension(new GenDurableExtension()).addExtension(new LegacyMetricsExtension())
                .addBeanClasses(BenchFsms.NoopJob.class).initialize()) {
            EngineMetrics metrics = c.select(DurableBean.class).get().engine().metrics();
            out.println("ready " + (System.nanoTime() - t0) / 1e9);
            Thread in = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                    for (String l; (l = r.readLine()) != null; ) {
                        if (l.strip().equals("stop")) {
                            break;
                        } else if (l.strip().equals("mark")) {
                            out.println("mark " + Json.line(counters(metrics)));
                        }
                    }
                } catch (java.io.IOException ignored) {
                    // the bench went away: stop
                }
                stop.set(true);
            }, "scaleout-stdin");
            in.setDaemon(true);
            in.start();
            while (!stop.get()) {
                out.println("p " + metrics.flushedOutcomes.sum());
                LockSupport.parkNanos(50_000_000);
            }
            out.println("metrics " + Json.line(counters(metrics)));
        }
        System.exit(0);
    }

    /**
     * @return what the scenario reports per node: the claims ({@code picks}, {@code picked},
     * {@code empty_picks}: claims that got no row, {@code short_picks}: fewer than asked), the
     * K = 1 races ({@code contended}: claims retried on the unique index, {@code contended_deferred}:
     * given up until the next poll) and the flushes' conflicts ({@code flush_deferred}: outcomes
     * carried because another transaction held their row, {@code flush_errors}: failed attempts,
     * {@code stale}: outcomes whose claim had been lost)
     */
    static Map<String, Object> counters(EngineMetrics m) {
        Map<String, Object> r = new LinkedHashMap<>();
        long picks = m.picks.sum();
        r.put("jobs", m.flushedOutcomes.sum());
        r.put("picks", picks);
        r.put("picked", m.picked.sum());
        r.put("rows_per_pick", picks == 0 ? null : (double) m.picked.sum() / picks);
        r.put("empty_picks", m.emptyPicks.sum());
        r.put("short_picks", m.shortPicks.sum());
        r.put("contended", m.contended.sum());
        r.put("contended_deferred", m.contendedDeferred.sum());
        r.put("flushes", m.flushes.sum());
        r.put("flush_deferred", m.flushDeferred.sum());
        r.put("flush_errors", m.flushErrors.sum());
        r.put("stale", m.stale.sum());
        r.put("loop_errors", m.loopErrors.sum());
        return r;
    }
}
