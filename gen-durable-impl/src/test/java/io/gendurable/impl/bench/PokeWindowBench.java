package io.gendurable.impl.bench;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.PokeTransport;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.testing.SharedTestDatabase;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A benchmark, not a test: what the postgres poke window ({@code gendurable.poke.window}) costs
 * and saves. For each window, node A (no queues) inserts single rows one after another with a
 * random gap (5 to 30 ms unless told); node B runs the queue and polls only every 60 s, so it learns of the
 * rows through A's notifications alone. Prints, per window: the notifications PostgreSQL
 * delivered (counted on a LISTEN connection of the benchmark's own) per 1,000 inserts, and the
 * latency from the insert's return (its commit) on A to the step's start on B (p50, p90, p99,
 * max, mean). Both nodes run in this JVM, so one {@code System.nanoTime} clock times both.
 * Run from {@code gen-durable-impl}:
 * <pre>
 * mvn -q test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp "$(cat /tmp/cp.txt):target/classes:target/test-classes" io.gendurable.impl.bench.PokeWindowBench 1000 0,5,25,50,100 5-30
 * </pre>
 */
public final class PokeWindowBench {
    /** The row's insert number. */
    public record Item(int n) {
    }

    /** Records when each row's step started. */
    public static class Stamp implements Fsm<Item> {
        static final Map<Integer, Long> STARTED = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            STARTED.putIfAbsent(s.n(), System.nanoTime());
            return Outcome.done();
        }
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        String[] windows = (args.length > 1 ? args[1] : "0,5,25,50,100").split(",");
        String[] gap = (args.length > 2 ? args[2] : "5-30").split("-");
        int minGap = Integer.parseInt(gap[0]);
        int maxGap = Integer.parseInt(gap[1]);
        System.out.println("gaps between inserts: " + minGap + " to " + maxGap + " ms");
        System.out.println("| window | notifications per 1,000 inserts | insert -> start on B: p50 | p90 | p99 | max | mean | inserts over |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (String w : windows) {
            run(n, Duration.ofMillis(Long.parseLong(w.trim())), minGap, maxGap);
        }
        System.exit(0);
    }

    private static void run(int n, Duration window, int minGap, int maxGap) throws Exception {
        Stamp.STARTED.clear();
        Duration slow = Duration.ofSeconds(60);
        try (EngineHarness h = new EngineHarness("pokebench")) {
            Engine a = h.start("A", c -> c.poke(PokeTransport.POSTGRES).pokeWindow(window)
                    .poll(slow, slow).queues(Map.of()), new Stamp());
            Engine b = h.start("B", c -> c.poke(PokeTransport.POSTGRES).pokeWindow(window)
                    .poll(slow, slow), new Stamp());
            while (EngineInternals.pokeListenerPid(b) <= 0 || b.metrics().picks.sum() < 1) {
                Thread.sleep(10);
            }
            String url = SharedTestDatabase.url();
            try (Connection listen = DriverManager.getConnection(url.contains("user=") ? url : url + "&user=postgres")) {
                listen.setAutoCommit(true);
                try (Statement st = listen.createStatement()) {
                    st.execute("LISTEN gendurable_" + h.schema());
                }
                PGConnection pg = listen.unwrap(PGConnection.class);
                AtomicLong notes = new AtomicLong();
                Thread counter = new Thread(() -> {
                    try {
                        while (!Thread.currentThread().isInterrupted()) {
                            PGNotification[] got = pg.getNotifications(100);
                            if (got != null) {
                                notes.addAndGet(got.length);
                            }
                        }
                    } catch (Exception e) {
                        // closed at the end
                    }
                });
                counter.start();
                Random gaps = new Random(42);
                long[] committed = new long[n];
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    a.insert(Stamp.class, new Item(i));
                    committed[i] = System.nanoTime();
                    Thread.sleep(minGap + gaps.nextInt(maxGap - minGap + 1));
                }
                long spanMs = (System.nanoTime() - t0) / 1_000_000;
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (Stamp.STARTED.size() < n && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                Thread.sleep(300);  // late notifications
                counter.interrupt();
                counter.join(2000);
                double[] ms = new double[n];
                int missing = 0;
                for (int i = 0; i < n; i++) {
                    Long s = Stamp.STARTED.get(i);
                    if (s == null) {
                        missing++;
                        ms[i] = Double.NaN;
                    } else {
                        ms[i] = (s - committed[i]) / 1e6;
                    }
                }
                double[] ok = Arrays.stream(ms).filter(d -> !Double.isNaN(d)).sorted().toArray();
                System.out.printf("| %d ms | %d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f s%s |%n",
                        window.toMillis(), notes.get() * 1000 / n, pct(ok, 50), pct(ok, 90), pct(ok, 99),
                        ok[ok.length - 1], Arrays.stream(ok).average().orElse(Double.NaN), spanMs / 1000.0,
                        missing == 0 ? "" : " (" + missing + " never started)");
            }
        }
    }

    private static double pct(double[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }
}
