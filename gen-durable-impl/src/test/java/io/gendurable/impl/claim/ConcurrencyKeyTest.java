package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Latches;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Concurrency keys with no configured gate: K = 1, cluster-wide mutual exclusion per key (the
 * claim filters keyed rows with an executing sibling; the unique index settles a cross-node race),
 * keys persist across steps, and a transition can release or switch its key.
 */
@EngineTest
class ConcurrencyKeyTest {
    static final int INSTANCES = 2_000;
    static final int KEYS = 20;

    public record Work(int n) {
    }

    /** Two sleeping steps; an in-step probe counts how many steps of each key run at once. */
    public static class Keyed implements Fsm<Work> {
        final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> maxPerKey = new ConcurrentHashMap<>();
        final AtomicInteger overlaps = new AtomicInteger();
        final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Work w, StepContext ctx) throws Exception {
            String key = ctx.concurrencyKey().orElseThrow();
            runs.computeIfAbsent(ctx.id() + "/" + step, k -> new AtomicInteger()).incrementAndGet();
            AtomicInteger n = inFlight.computeIfAbsent(key, k -> new AtomicInteger());
            int now = n.incrementAndGet();
            maxPerKey.computeIfAbsent(key, k -> new AtomicInteger()).accumulateAndGet(now, Math::max);
            if (now > 1) {
                overlaps.incrementAndGet();
            }
            try {
                Thread.sleep(5 + ThreadLocalRandom.current().nextInt(6));
            } finally {
                n.decrementAndGet();
            }
            return step.equals("first") ? Outcome.next("second", w) : Outcome.done();
        }
    }

    /**
     * A scripted instance: step "hold" signals it entered and waits for the test, then goes on as
     * {@code then} says ("done", "keep", "release" or "switch:&lt;key&gt;"); step "after" does the same and ends.
     */
    public record Script(String label, String then) {
    }

    public static class Scripted extends Latches implements Fsm<Script> {
        /** label → the concurrency key the step saw ("" for none) */
        final Map<String, String> keySeen = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Script s, StepContext ctx) throws Exception {
            String label = step.equals("hold") ? s.label() : s.label() + "/after";
            keySeen.put(label, ctx.concurrencyKey().orElse(""));
            hold(label);
            if (step.equals("after") || s.then().equals("done")) {
                return Outcome.done();
            }
            Outcome.Next next = Outcome.next("after", s);
            if (s.then().equals("release")) {
                return next.releaseConcurrencyKey();
            }
            if (s.then().startsWith("switch:")) {
                return next.concurrencyKey(s.then().substring("switch:".length()));
            }
            return next;
        }
    }

    private static InsertOptions key(String key) {
        return InsertOptions.builder().step("hold").concurrencyKey(key).build();
    }

    private Status status(Engine e, long id) {
        return e.find(id).orElseThrow().status();
    }

    /** Waits out a window in which {@code label} must not start: the passage of time is the behaviour. */
    private static void neverStartsWithin(Scripted fsm, String label, Duration window) {
        await(label + " must not start within " + window).during(window).atMost(window.plusSeconds(5))
                .until(() -> !fsm.started(label));
    }

    @Test
    void four_engines_racing_two_thousand_instances_over_twenty_keys_never_overlap_two_steps_of_one_key(EngineHarness h) {
        Keyed fsm = new Keyed();
        List<Engine> nodes = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            nodes.add(h.start("node" + i, c -> c.queues(Map.of("default", 16)), fsm));
        }
        List<NewInstance> batch = new ArrayList<>(INSTANCES);
        for (int i = 0; i < INSTANCES; i++) {
            batch.add(new NewInstance(Keyed.class.getName(), new Work(i),
                    InsertOptions.builder().step("first").concurrencyKey("account:" + (i % KEYS)).build()));
        }
        long t0 = System.nanoTime();
        nodes.get(0).insertAll(batch);
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == INSTANCES);
        double seconds = (System.nanoTime() - t0) / 1e9;
        long contended = nodes.stream().mapToLong(n -> n.metrics().contended.sum()).sum();
        int peakKeys = fsm.maxPerKey.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
        System.out.printf("K=1 race: %d steps over %d keys in %.1f s, max in flight per key %d, overlaps %d, "
                + "contended %d, steps per node %s%n", INSTANCES * 2, KEYS, seconds, peakKeys, fsm.overlaps.get(),
                contended, nodes.stream().map(n -> n.metrics().steps("next") + n.metrics().steps("done")).toList());

        assertThat(fsm.overlaps.get()).as("steps that found a sibling of their key running").isZero();
        assertThat(fsm.maxPerKey).hasSize(KEYS);
        assertThat(fsm.maxPerKey.values()).allSatisfy(m -> assertThat(m.get()).isEqualTo(1));
        assertThat(fsm.runs).hasSize(INSTANCES * 2);
        assertThat(fsm.runs.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
        // The race was real: several nodes ran steps.
        assertThat(nodes.stream().filter(n -> n.metrics().steps("done") > 0).count()).isGreaterThan(1);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE concurrency_shard IS NOT NULL")).isZero();
    }

    @Test
    void instances_without_a_key_never_serialize(EngineHarness h) throws Exception {
        Scripted fsm = new Scripted();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 12)), fsm);
        for (int i = 0; i < 12; i++) {
            e.insert(Scripted.class, new Script("free-" + i, "done"), InsertOptions.builder().step("hold").build());
        }
        // All twelve are inside their step at the same time.
        for (int i = 0; i < 12; i++) {
            assertThat(fsm.entered("free-" + i).await(10, TimeUnit.SECONDS)).as("free-" + i + " started").isTrue();
        }
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'")).isEqualTo(12);
        for (int i = 0; i < 12; i++) {
            fsm.release("free-" + i);
        }
        await().atMost(Duration.ofSeconds(10)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 12);
    }

    @Test
    void the_key_persists_across_steps_and_the_next_step_waits_while_a_sibling_holds_it(EngineHarness h) throws Exception {
        Scripted fsm = new Scripted();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4)), fsm);
        long a = e.insert(Scripted.class, new Script("A", "keep"), key("account:1")).id();
        assertThat(fsm.entered("A").await(10, TimeUnit.SECONDS)).isTrue();
        long b = e.insert(Scripted.class, new Script("B", "done"), key("account:1")).id();
        neverStartsWithin(fsm, "B", Duration.ofMillis(700));
        assertThat(status(e, b)).isEqualTo(Status.RUNNABLE);

        // A moves on keeping its key: now A's next step and B compete for account:1; one runs, the other waits.
        fsm.release("A");
        await().atMost(Duration.ofSeconds(10)).until(() -> fsm.started("B") || fsm.started("A/after"));
        String first = fsm.started("B") ? "B" : "A/after";
        String second = first.equals("B") ? "A/after" : "B";
        neverStartsWithin(fsm, second, Duration.ofMillis(700));
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + a
                + " AND concurrency_key = 'account:1' AND step = 'after'")).isEqualTo(1);

        fsm.release(first);
        assertThat(fsm.entered(second).await(10, TimeUnit.SECONDS)).isTrue();
        fsm.release(second);
        await().atMost(Duration.ofSeconds(10)).until(() -> status(e, a) == Status.DONE && status(e, b) == Status.DONE);
        assertThat(fsm.keySeen).containsEntry("A", "account:1").containsEntry("A/after", "account:1")
                .containsEntry("B", "account:1");
    }

    /**
     * A, holding account:1, moves on to its "after" step as {@code then} says; returns A once that
     * step runs, having checked the key each step saw and that A's row, executing, matches
     * {@code rowAfter}.
     */
    private static long movesOn(EngineHarness h, Scripted fsm, Engine e, String then, String keyAfter, String rowAfter)
            throws InterruptedException {
        fsm.release("A");
        long a = e.insert(Scripted.class, new Script("A", then), key("account:1")).id();
        assertThat(fsm.entered("A/after").await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(fsm.keySeen).containsEntry("A", "account:1").containsEntry("A/after", keyAfter);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + a + " AND status = 'executing' AND "
                + rowAfter)).as(rowAfter).isEqualTo(1);
        return a;
    }

    /** B, on account:1, runs to completion. */
    private void siblingOfTheOldKeyRuns(Scripted fsm, Engine e) {
        fsm.release("B");
        long b = e.insert(Scripted.class, new Script("B", "done"), key("account:1")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> status(e, b) == Status.DONE);
    }

    @Test
    void releasing_the_key_lets_a_sibling_run_while_the_instance_continues_keyless(EngineHarness h) throws Exception {
        Scripted fsm = new Scripted();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4)), fsm);
        long a = movesOn(h, fsm, e, "release", "", "concurrency_key IS NULL");

        // A is still running (keyless): a sibling with A's old key runs to completion meanwhile.
        siblingOfTheOldKeyRuns(fsm, e);
        assertThat(status(e, a)).isEqualTo(Status.EXECUTING);

        fsm.release("A/after");
        await().atMost(Duration.ofSeconds(10)).until(() -> status(e, a) == Status.DONE);
    }

    @Test
    void switching_the_key_frees_the_old_one_and_excludes_on_the_new_one(EngineHarness h) throws Exception {
        Scripted fsm = new Scripted();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 4)), fsm);
        long a = movesOn(h, fsm, e, "switch:other:1", "other:1", "concurrency_key = 'other:1' AND concurrency_name = 'other'");

        // The old key is free: a sibling on account:1 runs to completion.
        siblingOfTheOldKeyRuns(fsm, e);

        // The new key is held: a sibling on other:1 waits for A.
        fsm.release("C");
        long c = e.insert(Scripted.class, new Script("C", "done"), key("other:1")).id();
        neverStartsWithin(fsm, "C", Duration.ofMillis(700));
        assertThat(status(e, c)).isEqualTo(Status.RUNNABLE);

        fsm.release("A/after");
        await().atMost(Duration.ofSeconds(10)).until(() -> status(e, a) == Status.DONE && status(e, c) == Status.DONE);
        assertThat(fsm.keySeen).containsEntry("C", "other:1");
    }
}
