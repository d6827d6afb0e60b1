package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.PokeTransport;
import io.gendurable.impl.runtime.EngineEvents;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A measurement, not a test: the claims ("picks") a steady insert stream costs each of three
 * worker nodes when pokes cross nodes, per poke transport and window. A client node (no queues)
 * inserts single rows at {@code --rate} per second for {@code --seconds}; three worker nodes run
 * the queue (concurrency 8, steps of {@code --step-ms}, polls of 1 s backing off to 5 s). Prints,
 * per variant, each worker's picks per second and the share of them that found nothing, the
 * broadcasts' cost in rows per pick, and the insert → start latency (p50, p99). Run from the
 * repository root, on a running PostgreSQL and Redis:
 * <pre>
 * BENCH_MAIN=io.gendurable.bench.PokeHerd gen-durable-bench/bench.sh \
 *   jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres redis://127.0.0.1:6379 200 20 20 postgres:0,postgres:50,redis:0,redis:50
 * </pre>
 * Arguments: JDBC URL (empty: {@code GENDURABLE_BENCH_DB_URL}, else an embedded server), Redis URL,
 * inserts per second, seconds, step milliseconds, variants ({@code transport:window-ms}).
 */
public final class PokeHerd {
    /** A row's insert number. */
    public record Item(int n) {
    }

    /** Records when each row's step started, then sleeps. */
    public static class Work implements Fsm<Item> {
        static final Map<Integer, Long> STARTED = new ConcurrentHashMap<>();
        static volatile int stepMs;

        @Override
        public Outcome step(String step, Item s, StepContext ctx) throws Exception {
            STARTED.putIfAbsent(s.n(), System.nanoTime());
            Thread.sleep(stepMs);
            return Outcome.done();
        }
    }

    /** Counts a node's picks and empty picks. */
    static final class Picks implements EngineEvents {
        final LongAdder picks = new LongAdder();
        final LongAdder empty = new LongAdder();
        final LongAdder rows = new LongAdder();

        @Override
        public void picked(String queue, int count) {
            picks.increment();
            rows.add(count);
            if (count == 0) {
                empty.increment();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 && !args[0].isBlank() ? args[0] : null;
        String redis = args.length > 1 ? args[1] : "redis://127.0.0.1:6379";
        int rate = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 20;
        Work.stepMs = args.length > 4 ? Integer.parseInt(args[4]) : 20;
        String[] variants = (args.length > 5 ? args[5] : "postgres:0,postgres:50,redis:0,redis:50").split(",");
        try (BenchDb db = BenchDb.open(url, true)) {
            System.out.printf("%d inserts/s for %d s from a client node, steps of %d ms, 3 workers of concurrency 8%n",
                    rate, seconds, Work.stepMs);
            System.out.println("| poke | window | picks/s per worker | empty picks | rows per pick | insert -> start p50 | p99 | done |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            for (String v : variants) {
                String[] tw = v.split(":");
                run(db, redis, PokeTransport.valueOf(tw[0].toUpperCase()), Duration.ofMillis(Long.parseLong(tw[1])),
                        rate, seconds);
            }
        }
        System.exit(0);
    }

    private static EngineConfig config(String schema, String node, Map<String, Integer> queues,
                                       PokeTransport poke, Duration window, String redis) {
        EngineConfig.Builder b = EngineConfig.builder().nodeId(node).schema(schema).queues(queues)
                .poll(Duration.ofSeconds(1), Duration.ofSeconds(5)).poke(poke).pokeWindow(window);
        return poke == PokeTransport.REDIS ? b.redisUrl(redis).build() : b.build();
    }

    private static void run(BenchDb db, String redis, PokeTransport poke, Duration window, int rate,
                            int seconds) throws Exception {
        Work.STARTED.clear();
        String schema = BenchDb.newSchema("pokeherd");
        List<Node> workers = new ArrayList<>();
        List<Picks> picks = new ArrayList<>();
        try (HikariDataSource ds = db.pool("pokeherd", 40);
             Node client = new Node("client", ds, config(schema, "client", Map.of(), poke, window, redis), 2, null,
                     new Work()).start()) {
            for (int i = 0; i < 3; i++) {
                Picks p = new Picks();
                picks.add(p);
                workers.add(new Node("w" + i, ds, config(schema, "w" + i, Map.of("default", 8), poke, window, redis), 4, p,
                        new Work()).start());
            }
            Thread.sleep(1000);
            long[] before = picks.stream().mapToLong(p -> p.picks.sum()).toArray();
            long[] emptyBefore = picks.stream().mapToLong(p -> p.empty.sum()).toArray();
            long[] rowsBefore = picks.stream().mapToLong(p -> p.rows.sum()).toArray();
            int n = rate * seconds;
            long[] inserted = new long[n];
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long due = t0 + (long) (i * 1e9 / rate);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                client.engine.insert(Work.class, new Item(i));
                inserted[i] = System.nanoTime();
            }
            double span = (System.nanoTime() - t0) / 1e9;
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (Work.STARTED.size() < n && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            StringBuilder perWorker = new StringBuilder();
            long allPicks = 0;
            long allEmpty = 0;
            long allRows = 0;
            for (int i = 0; i < 3; i++) {
                long p = picks.get(i).picks.sum() - before[i];
                allPicks += p;
                allEmpty += picks.get(i).empty.sum() - emptyBefore[i];
                allRows += picks.get(i).rows.sum() - rowsBefore[i];
                perWorker.append(i == 0 ? "" : " / ").append(String.format("%.0f", p / span));
            }
            double[] ms = new double[Work.STARTED.size()];
            int k = 0;
            for (int i = 0; i < n; i++) {
                Long s = Work.STARTED.get(i);
                if (s != null) {
                    ms[k++] = (s - inserted[i]) / 1e6;
                }
            }
            double[] sorted = Arrays.stream(ms, 0, k).sorted().toArray();
            System.out.printf("| %s | %d ms | %s | %.0f %% | %.2f | %.1f ms | %.1f ms | %d/%d |%n",
                    poke.name().toLowerCase(), window.toMillis(), perWorker, 100.0 * allEmpty / Math.max(1, allPicks),
                    (double) allRows / Math.max(1, allPicks), pct(sorted, 50), pct(sorted, 99), k, n);
        } finally {
            workers.forEach(Node::close);
            try (HikariDataSource admin = db.pool("pokeherd-drop", 1)) {
                BenchDb.exec(admin, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    private static double pct(double[] sorted, int p) {
        return sorted.length == 0 ? Double.NaN
                : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }
}
