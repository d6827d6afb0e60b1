package io.gendurable.impl.admission;

import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.JdbcSpy;
import io.gendurable.impl.support.Latches;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Concurrency gates: a key whose name is configured under {@code concurrency-limits} is a
 * semaphore of {@code limit}, counted in sharded slot counters. The observed in-flight count per
 * key never exceeds the limit and reaches it under load, the counters return to capacity at
 * quiescence, a park frees its slot, and the reconciler heals a dead worker's leaked slot.
 */
@EngineTest
class GateTest {
    static final int LIMIT = 5;

    /**
     * @param label   names the instance for latches
     * @param mode    "sleep" (sleep {@code sleepMs}) or "hold" (wait for the test)
     * @param sleepMs how long a sleeping step takes
     */
    public record Task(String label, String mode, int sleepMs) {
    }

    /** Step "work" probes the in-flight count of its key; step "park" awaits signal "go", then works. */
    public static class Gated extends Latches implements Fsm<Task> {
        final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> maxPerKey = new ConcurrentHashMap<>();
        final AtomicInteger works = new AtomicInteger();
        final Map<String, Integer> meet = new ConcurrentHashMap<>();

        /**
         * Forces a key to reach {@code inFlight} steps at once instead of hoping the load does: each
         * step of {@code key} waits (up to 20 s) until that many have been in flight together. A
         * gate that admits fewer fails the test's max check after the wait; one that admits more,
         * its limit check. Use it with prefetch 0: a buffered row holds its slot without running.
         */
        Gated meet(String key, int inFlight) {
            meet.put(key, inFlight);
            return this;
        }

        int max(String key) {
            AtomicInteger m = maxPerKey.get(key);
            return m == null ? 0 : m.get();
        }

        @Override
        public Outcome step(String step, Task t, StepContext ctx) throws Exception {
            if (step.equals("park")) {
                return Outcome.await(Set.of("go"), "work", t);
            }
            String key = ctx.concurrencyKey().orElse("");
            AtomicInteger n = inFlight.computeIfAbsent(key, k -> new AtomicInteger());
            maxPerKey.computeIfAbsent(key, k -> new AtomicInteger()).accumulateAndGet(n.incrementAndGet(), Math::max);
            works.incrementAndGet();
            try {
                Integer together = meet.get(key);
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (together != null && max(key) < together && System.nanoTime() < until) {
                    Thread.sleep(1);
                }
                if (t.mode().equals("hold")) {
                    hold(t.label());
                } else {
                    entered(t.label()).countDown();
                    Thread.sleep(t.sleepMs());
                }
            } finally {
                n.decrementAndGet();
            }
            return Outcome.done();
        }
    }

    /** Holds the next gate credit statement (its prepare) until the test lets it go. */
    static final class CreditValve {
        volatile boolean armed;
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch proceed = new CountDownLatch(1);
        final CountDownLatch committed = new CountDownLatch(1);

        javax.sql.DataSource wrap(javax.sql.DataSource target) {
            return JdbcSpy.connections(target, c -> {
                boolean[] held = {false};
                return JdbcSpy.around(c, (m, args, call) -> {
                    String sql = JdbcSpy.preparedSql(m, args);
                    if (armed && sql != null && sql.strip().startsWith("WITH c AS")) {
                        armed = false;
                        held[0] = true;
                        reached.countDown();
                        proceed.await(30, TimeUnit.SECONDS);
                    }
                    Object r = call.proceed();
                    if (held[0] && m.getName().equals("commit")) {
                        held[0] = false;
                        committed.countDown();
                    }
                    return r;
                });
            });
        }
    }

    EngineHarness h;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
    }

    static LimitsConfig gate(String name, int limit, int shards) {
        return new LimitsConfig(Map.of(), Map.of(name, new LimitsConfig.Gate(name, limit, shards)));
    }

    private static NewInstance task(String label, String mode, String key, String step) {
        return new NewInstance(Gated.class.getName(), new Task(label, mode, 20),
                InsertOptions.builder().step(step).concurrencyKey(key).build());
    }

    private long count(String sql) {
        return h.queryLong(sql);
    }

    private long available(String key) {
        return count("SELECT COALESCE(sum(available), -1)::bigint FROM gen_durable_buckets WHERE kind = 'conc' AND key = '"
                + key + "'");
    }

    /** Every gate shard that exists is full; a key with no shards at all counts as full too. */
    private void awaitEveryGateFull() {
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable_buckets WHERE kind = 'conc' AND available <> capacity") == 0);
    }

    private static void neverStartsWithin(Gated fsm, Set<String> labels, Duration window) {
        await(labels + " must not start within " + window).during(window).atMost(window.plusSeconds(5))
                .until(() -> labels.stream().noneMatch(fsm::started));
    }

    @ParameterizedTest(name = "shards = {0}")
    @ValueSource(ints = {1, 3})
    void three_engines_never_run_more_than_the_limit_per_key_reach_it_under_load_and_return_every_slot(int shards) {
        List<String> keys = List.of("api:tenant-1", "api:tenant-2", "api:tenant-3");
        // Each key's steps wait until five run at once: its limit is reached whatever the machine's
        // load, and no node's eight slots can hold all three keys' five, so more than one node works.
        Gated fsm = new Gated();
        keys.forEach(k -> fsm.meet(k, LIMIT));
        List<Engine> nodes = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            nodes.add(h.start("node" + i, c -> c.queues(Map.of("default", 8)).prefetch(0).limits(gate("api", LIMIT, shards)),
                    fsm));
        }
        int perKey = 200;
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < perKey; i++) {
            for (String key : keys) {
                batch.add(task(key + "#" + i, "sleep", key, "work"));
            }
        }
        long t0 = System.nanoTime();
        nodes.get(0).insertAll(batch);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == batch.size());
        System.out.printf("gate api limit %d shards %d: %d steps in %.1f s, max in flight per key %s, gateThrottled %d,"
                        + " contended %d%n", LIMIT, shards, batch.size(), (System.nanoTime() - t0) / 1e9, fsm.maxPerKey,
                nodes.stream().mapToLong(n -> n.metrics().gateThrottled.sum()).sum(),
                nodes.stream().mapToLong(n -> n.metrics().contended.sum()).sum());

        assertThat(fsm.works.get()).isEqualTo(batch.size());
        for (String key : keys) {
            assertThat(fsm.max(key)).as("max in flight of %s", key).isEqualTo(LIMIT);
        }
        assertThat(nodes.stream().mapToLong(n -> n.metrics().gateThrottled.sum()).sum()).isPositive();
        assertThat(nodes.stream().filter(n -> n.metrics().steps("done") > 0).count()).isGreaterThan(1);
        // Quiescence: every slot credited back (no reconciler ran), each key with all its shards summing to the limit.
        awaitEveryGateFull();
        assertThat(count("SELECT count(*) FROM (SELECT key FROM gen_durable_buckets WHERE kind = 'conc' GROUP BY key"
                + " HAVING sum(capacity) = " + LIMIT + " AND count(*) = " + shards + ") k")).isEqualTo(keys.size());
        assertThat(count("SELECT count(*) FROM gen_durable WHERE concurrency_shard IS NOT NULL")).isZero();
        // The reconciler finds nothing to heal; it only sweeps the idle keys (a missing key reads as full).
        assertThat(EngineInternals.gc(nodes.get(0)).reconcileGates()).isEqualTo(keys.size() * shards);
        assertThat(count("SELECT count(*) FROM gen_durable_buckets")).isZero();
    }

    @Test
    void a_parked_instance_does_not_hold_its_slot_and_re_admits_through_the_gate_when_woken() throws Exception {
        Gated fsm = new Gated();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 12)).limits(gate("api", LIMIT, 1)), fsm);
        List<Long> parked = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++) {
            parked.add(e.insert(task("P" + i, "hold", "api:t", "park")).id());
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'awaiting_signal'") == LIMIT);
        await().atMost(Duration.ofSeconds(10)).until(() -> available("api:t") == LIMIT);

        // Five parked: five more still run, all at once.
        for (int i = 0; i < LIMIT; i++) {
            e.insert(task("H" + i, "hold", "api:t", "work"));
        }
        for (int i = 0; i < LIMIT; i++) {
            assertThat(fsm.entered("H" + i).await(10, TimeUnit.SECONDS)).as("H" + i + " started").isTrue();
        }
        assertThat(available("api:t")).isZero();

        // Woken while the gate is full: they wait, runnable, for a slot.
        for (long id : parked) {
            e.signal(SignalTarget.id(id), "go", "now");
        }
        Set<String> woken = Set.of("P0", "P1", "P2", "P3", "P4");
        neverStartsWithin(fsm, woken, Duration.ofMillis(700));
        // Runnable, waiting for a slot: a node's claim may hold one for the moment its admission
        // takes to deny it and give it back, so look until all five are seen runnable together.
        await().alias("the five woken rows are runnable together").atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'runnable' AND step = 'work'") == LIMIT);
        assertThat(woken.stream().filter(fsm::started)).as("woken rows that started while the gate was full").isEmpty();

        woken.forEach(fsm::release);
        for (int i = 0; i < LIMIT; i++) {
            fsm.release("H" + i);
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 2 * LIMIT);
        assertThat(woken).allSatisfy(l -> assertThat(fsm.started(l)).isTrue());
        assertThat(fsm.max("api:t")).isEqualTo(LIMIT);
        awaitEveryGateFull();
    }

    @Test
    void a_dead_workers_leaked_slot_is_healed_by_the_reconciler_and_a_swept_key_reads_as_full() throws Exception {
        Gated fsm = new Gated();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 8)).limits(gate("api", LIMIT, 1)), fsm);
        long live = e.insert(task("live", "hold", "api:t", "work")).id();
        assertThat(fsm.entered("live").await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(available("api:t")).isEqualTo(LIMIT - 1);

        // A worker that died holding a slot: its row executing on shard 0 with an expired lease, the slot debited.
        long dead = e.insert(new NewInstance(Gated.class.getName(), new Task("dead", "hold", 0),
                InsertOptions.builder().queue("nobody").step("work").concurrencyKey("api:t").build())).id();
        h.exec("UPDATE gen_durable_buckets SET available = available - 1 WHERE kind = 'conc' AND key = 'api:t'");
        h.claimedBy(dead, "dead:nobody@00000000", "-1 second");
        h.exec("UPDATE gen_durable SET concurrency_shard = 0 WHERE id = " + dead);
        // While it is executing, the truth agrees with the counter: nothing to heal.
        assertThat(EngineInternals.gc(e).reconcileGates()).isZero();
        assertThat(available("api:t")).isEqualTo(LIMIT - 2);

        assertThat(EngineInternals.reaper(e).runOnce()).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM gen_durable WHERE id = " + dead
                + " AND status = 'runnable' AND concurrency_shard IS NULL")).isEqualTo(1);
        assertThat(available("api:t")).as("the reaped slot was never credited: leaked").isEqualTo(LIMIT - 2);

        long before = e.metrics().bucketsReconciled.sum();
        assertThat(EngineInternals.gc(e).reconcileGates()).isEqualTo(1);
        assertThat(available("api:t")).as("capacity minus the one live holder").isEqualTo(LIMIT - 1);
        assertThat(e.metrics().bucketsReconciled.sum() - before).isEqualTo(1);

        fsm.release("live");
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(live).orElseThrow().status() == Status.DONE);
        awaitEveryGateFull();
        assertThat(available("api:t")).isEqualTo(LIMIT);

        // Idle now: the reconciler sweeps the key, and the next admission mints it full — five run at once.
        assertThat(EngineInternals.gc(e).reconcileGates()).isEqualTo(1);
        assertThat(available("api:t")).isEqualTo(-1);
        for (int i = 0; i < LIMIT + 1; i++) {
            e.insert(task("again" + i, "hold", "api:t", "work"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.inFlight.get("api:t").get() == LIMIT);
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5))
                .until(() -> fsm.inFlight.get("api:t").get() == LIMIT);
        for (int i = 0; i < LIMIT + 1; i++) {
            fsm.release("again" + i);
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 1 + LIMIT + 1);
        assertThat(fsm.max("api:t")).isEqualTo(LIMIT);
    }

    @Test
    void a_gate_name_that_captures_keys_used_as_identities_is_legal_warned_and_turns_them_k_at_a_time() throws Exception {
        Gated fsm = new Gated();
        // A node without the gate runs order:42 as a one-at-a-time identity.
        Engine ident = h.start("ident", c -> c.queues(Map.of("identities", 2)), fsm);
        ident.insert(new NewInstance(Gated.class.getName(), new Task("identity", "hold", 0),
                InsertOptions.builder().queue("identities").step("work").concurrencyKey("order:42").build()));
        assertThat(fsm.entered("identity").await(10, TimeUnit.SECONDS)).isTrue();

        ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    seen.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("io.gendurable.admission");
        log.addHandler(handler);
        Engine gated;
        try {
            gated = h.start("gated", c -> c.queues(Map.of("default", 8)).limits(gate("order", 3, 1)), fsm);
        } finally {
            log.removeHandler(handler);
        }
        assertThat(seen).anySatisfy(m -> assertThat(m).contains("gate 'order'").contains("identities"));

        // On the gated node, order:7 is three-at-a-time, not one.
        for (int i = 0; i < 5; i++) {
            gated.insert(task("o" + i, "hold", "order:7", "work"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.inFlight.get("order:7") != null
                && fsm.inFlight.get("order:7").get() == 3);
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5))
                .until(() -> fsm.inFlight.get("order:7").get() == 3);
        for (int i = 0; i < 5; i++) {
            fsm.release("o" + i);
        }
        fsm.release("identity");
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 6);
        assertThat(fsm.max("order:7")).isEqualTo(3);
        assertThat(fsm.max("order:42")).isEqualTo(1);
    }

    @Test
    void prefetched_claims_hold_their_slots_and_a_drain_gives_them_back() throws Exception {
        Gated fsm = new Gated();
        // One running slot and four prefetched: a single fill claims and admits all five.
        Engine a = h.start("a", c -> c.queues(Map.of("default", 1)).prefetch(4)
                .limits(gate("api", LIMIT, 1)), fsm);
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++) {
            batch.add(task("t" + i, "hold", "api:t", "work"));
        }
        a.insertAll(batch);
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.works.get() == 1 && EngineInternals.schedulers(a).get(0).buffered() == 4);
        assertThat(available("api:t")).isZero();
        assertThat(count("SELECT count(*) FROM gen_durable WHERE status = 'executing' AND concurrency_shard = 0"))
                .isEqualTo(LIMIT);

        // Another node cannot run a sixth: the buffered rows hold their slots.
        Engine b = h.start("b", c -> c.queues(Map.of("default", 8)).limits(gate("api", LIMIT, 1)), fsm);
        b.insert(task("sixth", "hold", "api:t", "work"));
        neverStartsWithin(fsm, Set.of("sixth"), Duration.ofMillis(700));

        // Draining node a releases its four buffered claims and credits their slots: node b runs four of the five.
        Thread stopping = new Thread(a::stop, "stop-a");
        stopping.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.works.get() == 1 + 4);
        assertThat(fsm.inFlight.get("api:t").get()).isEqualTo(LIMIT);
        assertThat(a.metrics().released.sum()).isEqualTo(4);
        neverStartsWithin(fsm, Set.of("t0", "t1", "t2", "t3", "t4", "sixth").stream()
                .filter(l -> !fsm.started(l)).collect(java.util.stream.Collectors.toSet()), Duration.ofMillis(500));

        for (int i = 0; i < LIMIT; i++) {
            fsm.release("t" + i);
        }
        fsm.release("sixth");
        stopping.join(10_000);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == LIMIT + 1);
        assertThat(fsm.max("api:t")).isEqualTo(LIMIT);
        awaitEveryGateFull();
    }

    private static NewInstance inQueue(String queue, String label) {
        return new NewInstance(Gated.class.getName(), new Task(label, "hold", 0),
                InsertOptions.builder().queue(queue).step("work").concurrencyKey("api:t").build());
    }

    private long availableOnShardsBelow(int shards) {
        return count("SELECT COALESCE(sum(available), -1)::bigint FROM gen_durable_buckets WHERE kind = 'conc'"
                + " AND key = 'api:t' AND shard < " + shards);
    }

    /** Fills the gate from {@code node} with {@code n} holders; at most {@code limit} run at once, and that many do. */
    private void runsExactlyTheLimit(Gated fsm, Engine node, int limit, int n) {
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(task("r" + i, "hold", "api:t", "work"));
        }
        node.insertAll(batch);
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.inFlight.get("api:t").get() == limit);
        await("no more than " + limit + " in flight").during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5))
                .until(() -> fsm.inFlight.get("api:t").get() == limit);
        assertThat(fsm.max("api:t")).isEqualTo(limit);
        for (int i = 0; i < n; i++) {
            fsm.release("r" + i);
        }
    }

    @Test
    void after_a_shards_increase_the_reconciler_reshapes_the_key_backfills_shards_and_the_limit_holds() throws Exception {
        Gated fsm = new Gated();
        Engine old = h.start("old", c -> c.queues(Map.of("old", 8)).limits(gate("api", 6, 1)), fsm);
        for (int i = 0; i < 4; i++) {
            old.insert(inQueue("old", "held" + i));
            assertThat(fsm.entered("held" + i).await(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(count("SELECT count(*) FROM gen_durable_buckets WHERE key = 'api:t'")).isEqualTo(1);
        assertThat(available("api:t")).isEqualTo(2);

        // A node restarted with shards = 3: shard 0 shrinks to its share of 2 (it holds 4), shards 1 and 2 appear;
        // the two holders over shard 0's share come off the new shards, so 6 - 4 = 2 slots remain in all.
        Engine resharded = h.start("new", c -> c.queues(Map.of("default", 8)).limits(gate("api", 6, 3)), fsm);
        assertThat(EngineInternals.gc(resharded).reconcileGates()).isEqualTo(1 + 2);
        assertThat(count("SELECT count(*) FROM gen_durable_buckets WHERE key = 'api:t' AND capacity = 2")).isEqualTo(3);
        assertThat(available("api:t")).isEqualTo(2);
        runsExactlyTheLimit(fsm, resharded, 6, 4);

        for (int i = 0; i < 4; i++) {
            fsm.release("held" + i);
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 8);
        // Under-credited (the safe direction) until the reconciler runs: then idle, swept, full.
        EngineInternals.gc(resharded).reconcileGates();
        assertThat(count("SELECT count(*) FROM gen_durable_buckets")).isZero();
    }

    @Test
    void after_a_shards_decrease_holders_of_retired_shards_still_count_against_the_limit() throws Exception {
        Gated fsm = new Gated();
        Engine old = h.start("old", c -> c.queues(Map.of("old", 8)).limits(gate("api", 6, 3)), fsm);
        for (int i = 0; i < 6; i++) {
            old.insert(inQueue("old", "held" + i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                fsm.inFlight.get("api:t") != null && fsm.inFlight.get("api:t").get() == 6);
        // Three finish; three stay, spread over the three shards in whatever way admission drew them.
        for (int i = 0; i < 3; i++) {
            fsm.release("held" + i);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.inFlight.get("api:t").get() == 3);
        awaitCreditsOf(3);

        // A node restarted with shards = 1: shard 0 takes the whole limit, minus every holder, wherever it drew.
        Engine resharded = h.start("new", c -> c.queues(Map.of("default", 16)).limits(gate("api", 6, 1)), fsm);
        EngineInternals.gc(resharded).reconcileGates();
        assertThat(count("SELECT capacity::bigint FROM gen_durable_buckets WHERE key = 'api:t' AND shard = 0"))
                .isEqualTo(6);
        assertThat(availableOnShardsBelow(1)).isEqualTo(6 - 3);
        runsExactlyTheLimit(fsm, resharded, 6, 6);

        for (int i = 3; i < 6; i++) {
            fsm.release("held" + i);
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 12);
        assertThat(fsm.max("api:t")).isEqualTo(6);
    }

    /** Waits until the gate counters of api:t show exactly {@code free} free slots (every pending credit landed). */
    private void awaitCreditsOf(long free) {
        await().atMost(Duration.ofSeconds(10)).until(() -> available("api:t") == free);
    }

    @Test
    void a_row_gated_and_rate_limited_runs_only_when_both_admit_and_debits_neither_when_one_denies() {
        Gated fsm = new Gated().meet("stripe:t", 2);
        LimitsConfig limits = new LimitsConfig(
                Map.of("mail", new LimitsConfig.RateLimit("mail", 1, Duration.ofHours(1), 3, 1)),
                Map.of("stripe", new LimitsConfig.Gate("stripe", 2, 1)));
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 8)).limits(limits), fsm);
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
        assertThat(count("SELECT round(sum(available) * 1000)::bigint FROM gen_durable_buckets WHERE kind = 'rate'"))
                .isZero();
        // And a row the rate limit turned away took no slot: the gate is full again with no reconciler.
        awaitEveryGateFull();
        assertThat(available("stripe:t")).isEqualTo(2);
    }

    /**
     * A gate of {@code limit}: {@code limit - 1} long holders and X. X's outcome and its credit are
     * one transaction (the flush), held open here just before the credit. Meanwhile the reconciler
     * runs: it still sees X executing, so it frees nothing, and Y cannot start. Once the flush
     * commits, X's slot goes to Y, and Z keeps waiting: never more than {@code limit} at once.
     */
    private void creditCommitsWithItsOutcome(int limit) throws Exception {
        CreditValve valve = new CreditValve();
        h.wrapDataSource(valve::wrap);
        Gated fsm = new Gated();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 8)).limits(gate("api", limit, 1)), fsm);
        for (int i = 0; i < limit - 1; i++) {
            e.insert(task("W" + i, "hold", "api:t", "work"));
            assertThat(fsm.entered("W" + i).await(10, TimeUnit.SECONDS)).isTrue();
        }
        long x = e.insert(task("X", "hold", "api:t", "work")).id();
        assertThat(fsm.entered("X").await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(available("api:t")).isZero();

        valve.armed = true;
        fsm.release("X");
        assertThat(valve.reached.await(10, TimeUnit.SECONDS)).isTrue();
        // The flush is open: X's outcome is not visible yet, and neither is its credit.
        assertThat(e.find(x).orElseThrow().status()).isEqualTo(Status.EXECUTING);
        assertThat(EngineInternals.gc(e).reconcileGates()).isZero();
        e.insert(task("Y", "hold", "api:t", "work"));
        neverStartsWithin(fsm, Set.of("Y"), Duration.ofMillis(700));

        valve.proceed.countDown();
        assertThat(valve.committed.await(10, TimeUnit.SECONDS)).as("the flush committed").isTrue();
        assertThat(e.find(x).orElseThrow().status()).isEqualTo(Status.DONE);
        assertThat(fsm.entered("Y").await(10, TimeUnit.SECONDS)).isTrue();
        e.insert(task("Z", "hold", "api:t", "work"));
        neverStartsWithin(fsm, Set.of("Z"), Duration.ofMillis(1000));
        assertThat(fsm.max("api:t")).isEqualTo(limit);
        assertThat(available("api:t")).isZero();

        for (int i = 0; i < limit - 1; i++) {
            fsm.release("W" + i);
        }
        fsm.release("Y");
        fsm.release("Z");
        await().atMost(Duration.ofSeconds(10)).until(() ->
                count("SELECT count(*) FROM gen_durable WHERE status = 'done'") == limit + 2);
        assertThat(fsm.max("api:t")).isEqualTo(limit);
        awaitEveryGateFull();
    }

    @Test
    void with_a_gate_of_one_an_outcome_and_its_credit_commit_together_so_a_reconcile_in_between_frees_nothing()
            throws Exception {
        creditCommitsWithItsOutcome(1);
    }

    @Test
    void with_a_gate_of_two_an_outcome_and_its_credit_commit_together_so_a_reconcile_in_between_frees_nothing()
            throws Exception {
        creditCommitsWithItsOutcome(2);
    }
}
