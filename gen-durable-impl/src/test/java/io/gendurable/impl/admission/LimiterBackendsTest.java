package io.gendurable.impl.admission;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import io.gendurable.impl.admission.GateTest.Gated;
import io.gendurable.impl.admission.GateTest.Task;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimiterBackend;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The admission rules, against both limiters ({@code gendurable.limiter=postgres} and
 * {@code redis}): gates never exceed their limit across nodes and reach it under load, rate limits
 * admit their burst and no more, a row that is both gated and rate-limited debits neither when one
 * denies, every slot comes back at quiescence (conservation), K = 1 keys stay one at a time
 * whatever the backend, and an inline chain keeps its slot between steps and gives it back.
 */
@EngineTest
class LimiterBackendsTest {
    static final int LIMIT = 5;

    /** An inline chain of four steps under its key. */
    @DurableFsm(name = "chain4", inlineExecution = true)
    public static class Chain implements Fsm<Integer> {
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger max = new AtomicInteger();

        @Override
        public Outcome step(String step, Integer n, StepContext ctx) throws Exception {
            max.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                Thread.sleep(10);
            } finally {
                inFlight.decrementAndGet();
            }
            return n < 3 ? Outcome.next("s" + (n + 1), n + 1) : Outcome.done(n);
        }
    }

    EngineHarness h;
    RedisClient client;
    StatefulRedisConnection<String, String> redis;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    @AfterEach
    void down() {
        if (client != null) {
            redis.close();
            client.shutdown();
        }
    }

    private UnaryOperator<EngineConfig.Builder> on(LimiterBackend backend, LimitsConfig limits, int slots) {
        return c -> {
            c.queues(Map.of("default", slots)).limits(limits).limiter(backend);
            return backend == LimiterBackend.REDIS ? c.redisUrl(TestRedis.url()) : c;
        };
    }

    /** @return free slots of a gate key, as the backend counts them (a key it never saw: the limit) */
    private long free(LimiterBackend backend, String key, int limit) {
        if (backend == LimiterBackend.POSTGRES) {
            long a = h.queryLong("SELECT COALESCE(sum(available), -1)::bigint FROM gen_durable_buckets"
                    + " WHERE kind = 'conc' AND key = '" + key + "'");
            return a < 0 ? limit : a;
        }
        if (client == null) {
            client = RedisClient.create(TestRedis.url());
            redis = client.connect();
        }
        long nowMs = System.currentTimeMillis();
        return limit - redis.sync().zcount("gendurable:" + h.schema() + ":conc:" + key,
                io.lettuce.core.Range.create(nowMs, Double.POSITIVE_INFINITY));
    }

    private long count(String sql) {
        return h.queryLong(sql);
    }

    private static NewInstance task(String label, String mode, int sleepMs, String key) {
        return new NewInstance(Gated.class.getName(), new Task(label, mode, sleepMs),
                InsertOptions.builder().step("work").concurrencyKey(key).build());
    }

    @ParameterizedTest
    @EnumSource(LimiterBackend.class)
    void three_engines_never_run_more_than_the_limit_per_key_reach_it_under_load_and_return_every_slot(
            LimiterBackend backend) {
        List<String> keys = List.of("api:tenant-1", "api:tenant-2", "api:tenant-3");
        // Each key's steps wait until five run at once (GateTest.Gated.meet): the limit is reached whatever the load.
        Gated fsm = new Gated();
        keys.forEach(k -> fsm.meet(k, LIMIT));
        LimitsConfig limits = GateTest.gate("api", LIMIT, 1);
        List<Engine> nodes = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            nodes.add(h.start("node" + i, c -> on(backend, limits, 8).apply(c).prefetch(0), fsm));
        }
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            for (String key : keys) {
                // 40 ms: long enough beside the claim and flush round trips of three nodes on two
                // busy cores for a key's five slots to be running at once (20 ms reached 4 there)
                batch.add(task(key + "#" + i, "sleep", 40, key));
            }
        }
        nodes.get(0).insertAll(batch);
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == batch.size());

        assertThat(fsm.works.get()).isEqualTo(batch.size());
        for (String key : keys) {
            assertThat(fsm.max(key)).as("max in flight of %s (%s)", key, backend).isEqualTo(LIMIT);
        }
        assertThat(nodes.stream().mapToLong(n -> n.metrics().gateThrottled.sum()).sum()).isPositive();
        // Conservation: every slot back, with no reconciler and no lease lapse.
        for (String key : keys) {
            await().atMost(Duration.ofSeconds(10)).until(() -> free(backend, key, LIMIT) == LIMIT);
        }
        assertThat(count("SELECT count(*) FROM gen_durable WHERE concurrency_shard IS NOT NULL")).isZero();
    }

    @ParameterizedTest
    @EnumSource(LimiterBackend.class)
    void a_rate_limit_admits_its_burst_then_nothing_until_it_refills(LimiterBackend backend) {
        Gated fsm = new Gated();
        LimitsConfig limits = new LimitsConfig(
                Map.of("mail", new LimitsConfig.RateLimit("mail", 4, Duration.ofHours(1), 4, 1)), Map.of());
        Engine a = h.start("a", on(backend, limits, 8), fsm);
        h.start("b", on(backend, limits, 8), fsm);
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            batch.add(new NewInstance(Gated.class.getName(), new Task("m" + i, "sleep", 5),
                    InsertOptions.builder().step("work").rateLimit("mail").build()));
        }
        a.insertAll(batch);
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.works.get() == 4);
        await("no fifth start").during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(5))
                .until(() -> fsm.works.get() == 4);
        // the six wait: runnable, or claimed by a node whose admission is about to deny and release
        // them (denied rows go back at once and are claimed again: docs/rate-limits.md)
        assertThat(count("SELECT count(*) FROM gen_durable WHERE status IN ('runnable', 'executing')")).isEqualTo(6);
        assertThat(fsm.works.get()).isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(LimiterBackend.class)
    void a_row_gated_and_rate_limited_runs_only_when_both_admit_and_debits_neither_when_one_denies(
            LimiterBackend backend) {
        Gated fsm = new Gated().meet("stripe:t", 2);
        LimitsConfig limits = new LimitsConfig(
                Map.of("mail", new LimitsConfig.RateLimit("mail", 1, Duration.ofHours(1), 3, 1)),
                Map.of("stripe", new LimitsConfig.Gate("stripe", 2, 1)));
        Engine e = h.start("n1", on(backend, limits, 8), fsm);
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            batch.add(new NewInstance(Gated.class.getName(), new Task("m" + i, "sleep", 150),
                    InsertOptions.builder().step("work").concurrencyKey("stripe:t").rateLimit("mail").build()));
        }
        e.insertAll(batch);
        // Three tokens: three start, never more than two at once; a row the gate turned away kept its token.
        await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 3);
        await("no fourth start").during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> fsm.works.get() == 3);
        assertThat(fsm.max("stripe:t")).isEqualTo(2);
        assertThat(e.metrics().gateThrottled.sum()).isPositive();
        assertThat(e.metrics().rateThrottled.sum()).isPositive();
        // A row the rate limit turned away took no slot.
        await().atMost(Duration.ofSeconds(10)).until(() -> free(backend, "stripe:t", 2) == 2);
    }

    @ParameterizedTest
    @EnumSource(LimiterBackend.class)
    void a_k1_key_stays_one_at_a_time_beside_a_gate_whatever_the_backend(LimiterBackend backend) throws Exception {
        Gated fsm = new Gated();
        Engine a = h.start("a", on(backend, GateTest.gate("api", 3, 1), 8), fsm);
        h.start("b", on(backend, GateTest.gate("api", 3, 1), 8), fsm);
        a.insert(task("K0", "hold", 0, "order:42"));
        assertThat(fsm.entered("K0").await(10, TimeUnit.SECONDS)).isTrue();
        a.insert(task("K1", "hold", 0, "order:42"));
        for (int i = 0; i < 3; i++) {
            a.insert(task("G" + i, "hold", 0, "api:t"));
            assertThat(fsm.entered("G" + i).await(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(free(backend, "api:t", 3)).isZero();
        await("the second holder of order:42 must wait").during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5))
                .until(() -> !fsm.started("K1"));
        // K = 1 is the row's business: no slot of any backend was taken for it.
        assertThat(count("SELECT count(*) FROM gen_durable_buckets WHERE key = 'order:42'")).isZero();
        fsm.release("K0");
        assertThat(fsm.entered("K1").await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fsm.max("order:42")).isEqualTo(1);
        fsm.release("K1");
        for (int i = 0; i < 3; i++) {
            fsm.release("G" + i);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 5);
        await().atMost(Duration.ofSeconds(10)).until(() -> free(backend, "api:t", 3) == 3);
    }

    @ParameterizedTest
    @EnumSource(LimiterBackend.class)
    void an_inline_chain_keeps_its_slot_between_steps_and_gives_it_back_at_the_end(LimiterBackend backend) {
        Chain fsm = new Chain();
        Engine e = h.start("n1", on(backend, GateTest.gate("api", 2, 1), 8), fsm);
        for (int i = 0; i < 8; i++) {
            e.insert(Chain.class, 0, InsertOptions.builder().concurrencyKey("api:t").build());
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 8);
        assertThat(e.metrics().steps("next_inline")).isEqualTo(8 * 3);
        assertThat(fsm.max.get()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> free(backend, "api:t", 2) == 2);
    }

    @ParameterizedTest
    @EnumSource(LimiterBackend.class)
    void a_parked_instance_gives_its_slot_back_and_re_admits_when_woken(LimiterBackend backend) throws Exception {
        Gated fsm = new Gated();
        Engine e = h.start("n1", on(backend, GateTest.gate("api", 1, 1), 8), fsm);
        long parked = e.insert(new NewInstance(Gated.class.getName(), new Task("P", "hold", 0),
                InsertOptions.builder().step("park").concurrencyKey("api:t").build())).id();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'awaiting_signal'") == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> free(backend, "api:t", 1) == 1);
        e.insert(task("H", "hold", 0, "api:t"));
        assertThat(fsm.entered("H").await(10, TimeUnit.SECONDS)).isTrue();
        e.signal(SignalTarget.id(parked), "go", "now");
        await("the woken row waits for the slot").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
                .until(() -> !fsm.started("P"));
        fsm.release("H");
        assertThat(fsm.entered("P").await(10, TimeUnit.SECONDS)).isTrue();
        fsm.release("P");
        await().atMost(Duration.ofSeconds(10)).until(() -> count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 2);
        assertThat(fsm.max("api:t")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> free(backend, "api:t", 1) == 1);
    }
}
