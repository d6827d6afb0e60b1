package io.gendurable.impl.keys;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
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
     * A short step (2 to 8 ms: its row is unlocked meanwhile, so blocking can hold it); counts the
     * steps of each key running at once.
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
                Thread.sleep(2 + ThreadLocalRandom.current().nextInt(7));
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
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 8)).reaper(NO_SWEEP), fsm);
        KeySql keys = new KeySql(new SchemaName(h.schema()));
        int keyCount = 12;
        int perKey = 120;
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < keyCount * perKey; i++) {
            batch.add(keyed(Quick.class, i, "acct:" + (i % keyCount)));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong blocked = new AtomicLong();
        AtomicInteger passes = new AtomicInteger();
        Thread blocker = new Thread(() -> {
            try (Connection c = h.dataSource().getConnection()) {
                while (!stop.get()) {
                    blocked.addAndGet(keys.block(c, "default", Instant.now(), 5_000, new String[0]));
                    passes.incrementAndGet();
                }
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
        }, "blocker");
        blocker.start();
        try {
            e.insertAll(batch);
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

    @Test
    void cancelling_a_keys_running_row_lets_its_next_blocked_row_in(EngineHarness h) throws Exception {
        Held fsm = new Held();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4)).reaper(NO_SWEEP), fsm);
        long first = e.insertAll(List.of(keyed(Held.class, -1, "acct:1"))).get(0).id();
        fsm.entered("first").await();
        e.insertAll(List.of(keyed(Held.class, 1, "acct:1"), keyed(Held.class, 2, "acct:1")));
        int n;
        try (Connection c = h.dataSource().getConnection()) {
            n = new KeySql(new SchemaName(h.schema())).block(c, "default", Instant.now(), 100, new String[0]);
        }
        assertThat(n).isEqualTo(2);
        e.operations().cancel(first, "no longer wanted");
        await().atMost(Duration.ofSeconds(20)).until(() -> fsm.ran.size() == 2);
        assertThat(fsm.ran).containsExactly(1, 2);
        fsm.release("first");
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
        // the slow claims started a blocking run, which blocked every row the key holds back
        await().atMost(Duration.ofSeconds(30)).until(() -> e.metrics().keysBlocked.sum() == hot);
        // the key then drains in its order, one row at a time, unblocked by each flush (no sweep here)
        fsm.release("first");
        await().atMost(Duration.ofSeconds(60)).until(() -> fsm.ran.size() >= 300 + 1 + 50);
        List<Integer> keyed = fsm.ran.stream().filter(n -> n < 100_000).toList();
        assertThat(keyed.subList(0, 51)).as("the hot key's rows in pick order").isSorted();
    }
}
