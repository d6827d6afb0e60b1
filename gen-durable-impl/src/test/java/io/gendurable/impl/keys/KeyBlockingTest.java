package io.gendurable.impl.keys;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Latches;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rows blocked behind their busy K = 1 key ({@link KeySql}, {@link KeyBlocking}): blocking races
 * the end of the keys' running rows without stranding a key, a cancelled running row lets the
 * next one in, the sweep unblocks a key left with none running, and a hot key's backlog is
 * blocked by the engine itself so that the queue's other work runs while the key drains in order.
 */
@EngineTest
class KeyBlockingTest {
    /** The reaper, and with it the sweep, off: only the protocol's own unblocking may let rows in. */
    private static final EngineConfig.ReaperConfig NO_SWEEP = new EngineConfig.ReaperConfig(false, Duration.ofSeconds(30), 100);

    public record Work(int n) {
    }

    /**
     * A short step (1 to 4 ms); counts the steps of each key running at once.
     */
    public static class Quick implements Fsm<Work> {
        final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();

        @Override
        public Outcome step(String step, Work w, StepContext ctx) throws Exception {
            AtomicInteger n = inFlight.computeIfAbsent(ctx.concurrencyKey().orElse(""), k -> new AtomicInteger());
            if (n.incrementAndGet() > 1 && ctx.concurrencyKey().isPresent()) {
                overlaps.incrementAndGet();
            }
            try {
                Thread.sleep(1 + ThreadLocalRandom.current().nextInt(4));
            } finally {
                n.decrementAndGet();
            }
            return Outcome.done();
        }
    }

    /** Step "hold" waits for the test under its label (the instance's number); the order they ran in is kept. */
    public static class Held extends Latches implements Fsm<Work> {
        final List<Integer> ran = java.util.Collections.synchronizedList(new ArrayList<>());

        @Override
        public Outcome step(String step, Work w, StepContext ctx) throws Exception {
            if (w.n() < 0) {
                hold("first");
            }
            ran.add(w.n());
            return Outcome.done();
        }
    }

    private static NewInstance keyed(Class<?> fsm, int n, String key) {
        InsertOptions.Builder o = InsertOptions.builder().step("go");
        return new NewInstance(fsm.getName(), new Work(n), key == null ? o.build() : o.concurrencyKey(key).build());
    }

    @Test
    void blocking_that_races_the_end_of_each_keys_running_row_never_strands_a_key(EngineHarness h) throws Exception {
        Quick fsm = new Quick();
        KeySql keys = new KeySql(new SchemaName(h.schema()));
        int keyCount = 12;
        int perKey = 300;
        h.start("n0", c -> c.queues(Map.of()), fsm);   // migrates
        // inserted by SQL: a batch through the engine would go in blocked behind each key's first row already
        h.exec("INSERT INTO gen_durable (fsm, step, state, concurrency_key) SELECT '" + Quick.class.getName()
                + "', 'go', jsonb_build_object('n', i), 'acct:' || (i % " + keyCount + ")"
                + " FROM generate_series(0, " + (keyCount * perKey - 1) + ") i");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong blocked = new AtomicLong();
        AtomicInteger passes = new AtomicInteger();
        Thread blocker = new Thread(() -> {
            try (Connection c = h.dataSource().getConnection()) {
                while (!stop.get()) {
                    blocked.addAndGet(keys.block(c, "default", Instant.now(), 5_000, new String[0]).blocked());
                    passes.incrementAndGet();
                }
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
        }, "blocker");
        blocker.start();
        try {
            h.start("n1", c -> c.queues(Map.of("default", 8)).reaper(NO_SWEEP), fsm);
            // A key stranded (rows blocked, none running, nothing left to unblock them) never finishes.
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() ->
                    h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == (long) keyCount * perKey);
        } finally {
            stop.set(true);
            blocker.join();
        }
        System.out.printf("key blocking race: %d blocking passes blocked %d rows; every key drained%n", passes.get(), blocked.get());
        assertThat(blocked.get()).as("the race was real: rows were blocked while their keys ran").isPositive();
        assertThat(fsm.overlaps.get()).as("steps that found a sibling of their key running").isZero();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE key_blocked")).isZero();
    }

    /**
     * The interleaving the head's lock exists for, step by step on two connections: a blocking
     * transaction still open while another claims the key's head, runs it and ends it (the end's
     * unblock cannot see the uncommitted blocking). Held FOR SHARE, the head cannot be claimed
     * until the blocking commits, and the key keeps a way in; without the lock, the claim takes the
     * head, the end unblocks nothing, and the blocking commits the key's other rows with nothing
     * left to let them in.
     */
    @Test
    void a_head_cannot_be_claimed_and_ended_under_an_open_blocking(EngineHarness h) throws Exception {
        Engine idle = h.start("n0", c -> c.queues(Map.of()), new Quick());
        for (int n = 1; n <= 3; n++) {
            idle.insertAll(List.of(keyed(Quick.class, n, "acct:5")));
        }
        SchemaName schema = new SchemaName(h.schema());
        KeySql keys = new KeySql(schema);
        io.gendurable.impl.claim.ClaimSql claims = new io.gendurable.impl.claim.ClaimSql(schema);
        try (Connection blocking = h.dataSource().getConnection(); Connection other = h.dataSource().getConnection()) {
            blocking.setAutoCommit(false);
            assertThat(keys.block(blocking, "default", Instant.now(), 100, new String[0]).blocked()).isEqualTo(2);
            // another node claims what it can of the queue, runs it and ends it, unblocking the key
            List<io.gendurable.impl.step.ClaimedRow> claimed = claims.claim(other, "default", "other:default@x", 10,
                    Instant.now(), Instant.now().plusSeconds(30), new String[0],
                    new String[]{Quick.class.getName() + ":1"});
            for (io.gendurable.impl.step.ClaimedRow r : claimed) {
                other.setAutoCommit(false);
                try (java.sql.Statement st = other.createStatement()) {
                    st.executeUpdate("UPDATE " + schema.instances() + " SET status = 'done', locked_by = NULL,"
                            + " lease_expires_at = NULL, claim_token = NULL WHERE id = " + r.id());
                }
                keys.unblock(other, List.of("acct:5"));
                other.commit();
                other.setAutoCommit(true);
            }
            blocking.commit();
            assertThat(claimed).as("the head, held by the open blocking, was not claimable").isEmpty();
        }
        long wayIn = h.queryLong("SELECT count(*) FROM gen_durable WHERE concurrency_key = 'acct:5'"
                + " AND (status = 'executing' OR (status = 'runnable' AND NOT key_blocked))");
        assertThat(wayIn).as("the key's rows that can run or will unblock the next").isPositive();
    }

    @Test
    void a_cancelled_head_hands_its_keys_turn_on_and_each_flush_lets_the_next_row_in(EngineHarness h) throws Exception {
        Held fsm = new Held();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4)).reaper(NO_SWEEP), fsm);
        e.insertAll(List.of(keyed(Held.class, -1, "acct:1")));
        fsm.entered("first").await();
        List<Long> ids = new ArrayList<>();
        for (int n = 1; n <= 3; n++) {   // one insert each: a batch would go in blocked already
            ids.add(e.insertAll(List.of(keyed(Held.class, n, "acct:1"))).get(0).id());
        }
        int blocked;
        try (Connection c = h.dataSource().getConnection()) {
            blocked = new KeySql(new SchemaName(h.schema())).block(c, "default", Instant.now(), 100, new String[0]).blocked();
        }
        assertThat(blocked).as("2 and 3, behind the head 1").isEqualTo(2);
        e.operations().cancel(ids.get(0), "no longer wanted");   // the head: its key still runs "first"
        fsm.release("first");
        await().atMost(Duration.ofSeconds(20)).until(() -> fsm.ran.size() == 3);
        assertThat(fsm.ran).containsExactly(-1, 2, 3);
    }

    @Test
    void a_batch_of_one_keys_rows_goes_in_behind_its_first_and_drains_in_order(EngineHarness h) {
        Held fsm = new Held();
        LimitsConfig gate = new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", 2, 1)));
        Engine idle = h.start("n0", c -> c.queues(Map.of()).limits(gate), fsm);
        List<NewInstance> batch = new ArrayList<>();
        for (int n = 1; n <= 50; n++) {
            batch.add(keyed(Held.class, n, "acct:7"));
        }
        batch.add(keyed(Held.class, 1001, "api:x"));         // a gate's key: never blocked
        batch.add(keyed(Held.class, 1002, "api:x"));
        batch.add(new NewInstance(Held.class.getName(), new Work(1003),   // a correlation key: never blocked
                InsertOptions.builder().step("go").concurrencyKey("acct:7").correlationKey("c-1003").build()));
        idle.insertAll(batch);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE key_blocked")).as("acct:7's rows but its first")
                .isEqualTo(49);
        assertThat(h.queryLong("SELECT min(id) FROM gen_durable WHERE concurrency_key = 'acct:7' AND NOT key_blocked"))
                .isEqualTo(h.queryLong("SELECT min(id) FROM gen_durable WHERE concurrency_key = 'acct:7'"));
        h.start("n1", c -> c.queues(Map.of("default", 4)).limits(gate).reaper(NO_SWEEP), fsm);
        await().atMost(Duration.ofSeconds(30)).until(() -> fsm.ran.size() == 53);
        List<Integer> ran;
        synchronized (fsm.ran) {
            ran = new ArrayList<>(fsm.ran);
        }
        assertThat(ran.stream().filter(n -> n <= 50).toList()).as("one after another, in their order").isSorted().hasSize(50);
    }

    @Test
    void the_sweep_unblocks_a_key_left_with_blocked_rows_and_none_running(EngineHarness h) {
        Held fsm = new Held();
        // rows blocked with no running row of their key: what a path that missed its unblock would leave
        Engine idle = h.start("n0", c -> c.queues(Map.of()), fsm);
        idle.insertAll(List.of(keyed(Held.class, 1, "acct:9"), keyed(Held.class, 2, "acct:9"), keyed(Held.class, 3, null)));
        h.exec("UPDATE gen_durable SET key_blocked = true WHERE concurrency_key = 'acct:9'");
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4))
                .reaper(new EngineConfig.ReaperConfig(true, Duration.ofMillis(200), 100)), fsm);
        await().atMost(Duration.ofSeconds(20)).until(() -> fsm.ran.size() == 3);
        assertThat(fsm.ran).containsSubsequence(1, 2);
        assertThat(e.metrics().keysUnblocked.sum()).as("the sweep unblocked the key's first row").isPositive();
    }

    @Test
    void a_hot_keys_backlog_is_blocked_by_the_engine_and_the_queues_other_work_runs_beside_it(EngineHarness h) {
        Held fsm = new Held();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 8)).reaper(NO_SWEEP), fsm);
        e.insertAll(List.of(keyed(Held.class, -1, "hot:1")));
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.started("first"));
        int hot = 30_000;
        h.exec("INSERT INTO gen_durable (fsm, step, state, concurrency_key, eligible_at)"
                + " SELECT '" + Held.class.getName() + "', 'go', jsonb_build_object('n', i), 'hot:1',"
                + " now() - interval '1 hour' + i * interval '1 millisecond' FROM generate_series(1, " + hot + ") i");
        List<NewInstance> ordinary = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            ordinary.add(keyed(Held.class, 100_000 + i, null));
        }
        e.insertAll(ordinary);
        await().atMost(Duration.ofSeconds(60)).until(() -> fsm.ran.size() == 300);
        // the slow claims started a blocking run, which blocked the key's rows but its head
        await().atMost(Duration.ofSeconds(30)).until(() -> e.metrics().keysBlocked.sum() == hot - 1);
        // the key then drains in its order, one row at a time, unblocked by each flush (no sweep here)
        fsm.release("first");
        await().atMost(Duration.ofSeconds(60)).until(() -> fsm.ran.size() >= 300 + 1 + 50);
        List<Integer> ran;
        synchronized (fsm.ran) {
            ran = new ArrayList<>(fsm.ran);
        }
        List<Integer> keyed = ran.stream().filter(n -> n < 100_000).toList();
        assertThat(keyed.subList(0, 51)).as("the hot key's rows in pick order").isSorted();
    }
}
