package io.gendurable.impl.admission;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Probe;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rate limits on started engines: admitted starts stay within {@code burst + rate × elapsed}, racing
 * pickers never mint a token twice, and the GC sweeps idle and orphaned buckets. The rules one
 * thread shows (weights, partitions, unknown limits) are {@link RateLimitRulesTest}'s.
 */
@EngineTest
class RateLimitTest {

    /**
     * @param label  what to count the starts under
     * @param then   "done", or "limited" (the next step draws {@code weight} tokens from "api")
     * @param weight the next step's weight
     */
    public record Job(String label, String then, int weight) {
    }

    /** Counts step starts by label and step, with their start instants. */
    public static class Counted implements Fsm<Job> {
        final Map<String, AtomicInteger> starts = new ConcurrentHashMap<>();
        final ConcurrentLinkedQueue<Long> startNanos = new ConcurrentLinkedQueue<>();

        int starts(String labelAndStep) {
            AtomicInteger n = starts.get(labelAndStep);
            return n == null ? 0 : n.get();
        }

        int total() {
            return starts.values().stream().mapToInt(AtomicInteger::get).sum();
        }

        @Override
        public Outcome step(String step, Job j, StepContext ctx) {
            startNanos.add(System.nanoTime());
            starts.computeIfAbsent(j.label() + "/" + step, k -> new AtomicInteger()).incrementAndGet();
            if (step.equals("first") && j.then().equals("limited")) {
                return Outcome.next("second", j).rateLimit("api").weight(j.weight());
            }
            return Outcome.done();
        }
    }

    EngineHarness h;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    static LimitsConfig rate(double allowed, Duration period, double burst, int shards) {
        return new LimitsConfig(Map.of("api", new LimitsConfig.RateLimit("api", allowed, period, burst, shards)), Map.of());
    }

    /** A bucket that refills one token an hour: within a test, only its burst is ever admitted. */
    static LimitsConfig burstOnly(double burst, int shards) {
        return rate(1, Duration.ofHours(1), burst, shards);
    }

    static NewInstance job(String label, String then, String rateLimit, int weight) {
        InsertOptions.Builder o = InsertOptions.builder().step("first").weight(weight);
        if (rateLimit != null) {
            int colon = rateLimit.indexOf(':');
            if (colon < 0) {
                o.rateLimit(rateLimit);
            } else {
                o.rateLimit(rateLimit.substring(0, colon), rateLimit.substring(colon + 1));
            }
        }
        return new NewInstance(Counted.class.getName(), new Job(label, then, 1), o.build());
    }

    private long count(String sql) {
        return h.queryLong(sql);
    }

    /** An instance whose unlimited first step moves on to a step of {@code weight} on "api". */
    static NewInstance moving(int weight) {
        return new NewInstance(Counted.class.getName(), new Job("moving", "limited", weight),
                InsertOptions.builder().step("first").build());
    }

    /** @return the tokens left in the bucket of {@code key} (-1 when it has no row) */
    static double tokens(Probe db, String key) {
        return db.count("SELECT COALESCE(round(sum(available) * 1000), -1000)::bigint FROM gen_durable_buckets"
                + " WHERE kind = 'rate' AND key = '" + key + "'") / 1000.0;
    }

    private double tokens(String key) {
        return tokens(new Probe(h), key);
    }

    /** Waits out a window in which the total number of starts must not move: the passage of time is the behaviour. */
    private static void startsStayAt(Counted fsm, int expected, Duration window) {
        await("starts stay at " + expected).during(window).atMost(window.plusSeconds(5))
                .until(() -> fsm.total() == expected);
    }

    @Test
    void admitted_starts_never_outrun_burst_plus_rate_times_elapsed_across_two_engines() {
        double allowed = 50;
        double burst = 50;
        Counted fsm = new Counted();
        List<Engine> nodes = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            nodes.add(h.start("node" + i, c -> c.queues(Map.of("default", 16))
                    .limits(rate(allowed, Duration.ofSeconds(1), burst, 1)), fsm));
        }
        // Both steps draw from "api": the first through the insert, the second through Next.rateLimit.
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            batch.add(job("j", "limited", "api", 1));
        }
        long t0 = System.nanoTime();
        nodes.get(0).insertAll(batch);
        int target = 250;
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100)).until(() -> fsm.total() >= target);

        List<Long> starts = fsm.startNanos.stream().sorted().toList();
        double worstSlack = Double.MAX_VALUE;
        for (int i = 0; i < starts.size(); i++) {
            double elapsed = (starts.get(i) - t0) / 1e9;
            double bound = burst + allowed * elapsed + 1;
            worstSlack = Math.min(worstSlack, bound - (i + 1));
            assertThat((double) (i + 1)).as("starts by %.3f s", elapsed).isLessThanOrEqualTo(bound);
        }
        double reachedAt = (starts.get(target - 1) - t0) / 1e9;
        System.out.printf("rate 50/s burst 50: %d starts by %.2f s (bucket bound %.0f), tightest slack %.2f tokens,"
                        + " rateThrottled %d%n", target, reachedAt, burst + allowed * reachedAt, worstSlack,
                nodes.stream().mapToLong(n -> n.metrics().rateThrottled.sum()).sum());
        // The bucket was the bottleneck, and it was not throttling much below its rate either.
        assertThat(nodes.stream().mapToLong(n -> n.metrics().rateThrottled.sum()).sum()).isPositive();
        assertThat(target).isGreaterThanOrEqualTo((int) (0.7 * (burst + allowed * reachedAt)));
        assertThat(fsm.starts("j/first")).isPositive();
        assertThat(fsm.starts("j/second")).isPositive();
    }

    @ParameterizedTest(name = "shards = {0}")
    @ValueSource(ints = {1, 4})
    void eight_racing_pickers_start_exactly_the_burst_and_never_mint_a_token_twice(int shards) {
        int burst = 100;
        Counted fsm = new Counted();
        List<Engine> nodes = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            nodes.add(h.start("node" + i, c -> c.queues(Map.of("q1", 12, "q2", 12))
                    .limits(burstOnly(burst, shards)), fsm));
        }
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            batch.add(new NewInstance(Counted.class.getName(), new Job("c", "done", 1),
                    InsertOptions.builder().step("first").queue(i % 2 == 0 ? "q1" : "q2").rateLimit("api").build()));
        }
        nodes.get(0).insertAll(batch);
        await().atMost(Duration.ofSeconds(20)).until(() -> fsm.total() >= burst);
        // Every picker keeps trying for a while: no further start may appear.
        startsStayAt(fsm, burst, Duration.ofMillis(1500));
        long throttled = nodes.stream().mapToLong(n -> n.metrics().rateThrottled.sum()).sum();
        long contended = nodes.stream().mapToLong(n -> n.metrics().contended.sum()).sum();
        System.out.printf("conservation (shards %d): %d starts of 600, %.3f tokens left, rateThrottled %d, "
                + "contended %d, starts per node %s%n", shards, fsm.total(), tokens("api"), throttled, contended,
                nodes.stream().map(n -> n.metrics().steps("done")).toList());

        assertThat(fsm.total()).isEqualTo(burst);
        assertThat(count("SELECT count(*) FROM gen_durable WHERE status = 'done'")).isEqualTo(burst);
        // The rest are runnable, or briefly claimed by a picker about to be denied: none ran, none failed.
        assertThat(count("SELECT count(*) FROM gen_durable WHERE status NOT IN ('runnable', 'executing')"))
                .isEqualTo(burst);
        assertThat(tokens("api")).isLessThan(0.01);
        assertThat(count("SELECT count(*) FROM gen_durable_buckets WHERE kind = 'rate' AND key = 'api'")).isEqualTo(shards);
        assertThat(nodes.stream().filter(n -> n.metrics().rateThrottled.sum() > 0).count()).as("nodes throttled")
                .isGreaterThan(1);
    }

    @Test
    void the_gc_sweeps_a_refilled_idle_key_and_an_unconfigured_one_and_a_swept_key_comes_back_full() {
        TestClock clock = new TestClock();
        Counted fsm = new Counted();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 64)).limits(rate(50, Duration.ofSeconds(1), 50, 1)),
                clock, fsm);
        long id = e.insert(job("one", "done", "api", 1)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(id).orElseThrow().status() == Status.DONE);
        assertThat(tokens("api")).isEqualTo(49);
        String now = "'" + clock.instant() + "'::timestamptz";
        h.exec("INSERT INTO gen_durable_buckets (kind, key, shard, capacity, available, last_refill) VALUES"
                + " ('rate', 'api:busy', 0, 50, 0, " + now + "), ('rate', 'gone', 0, 10, 3, " + now + ")");

        // The clock stands still: only the unconfigured key goes.
        assertThat(EngineInternals.gc(e).sweepRateBuckets()).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM gen_durable_buckets WHERE key = 'gone'")).isZero();
        assertThat(count("SELECT count(*) FROM gen_durable_buckets WHERE key IN ('api', 'api:busy')")).isEqualTo(2);

        // Half a second later "api" (49 + 25) has refilled and goes; "api:busy" (0 + 25) stays. The
        // sweep judges fullness a lease margin back (lease-ttl - heartbeat-interval: the clock skew
        // tolerated), so the clock moves that much more.
        var lease = h.configBuilder("n1").build().lease();
        clock.advance(Duration.ofMillis(500).plus(lease.ttl().minus(lease.heartbeatInterval())));
        assertThat(EngineInternals.gc(e).sweepRateBuckets()).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM gen_durable_buckets WHERE key = 'api'")).isZero();
        assertThat(count("SELECT count(*) FROM gen_durable_buckets WHERE key = 'api:busy'")).isEqualTo(1);

        // A swept key is a full one: with the clock still, exactly the burst of 50 starts.
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            batch.add(job("again", "done", "api", 1));
        }
        e.insertAll(batch);
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.starts("again/first") == 50);
        startsStayAt(fsm, 1 + 50, Duration.ofMillis(700));
        assertThat(tokens("api")).isZero();
    }
}
