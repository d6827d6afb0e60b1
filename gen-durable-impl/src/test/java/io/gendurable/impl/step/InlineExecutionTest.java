package io.gendurable.impl.step;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.Kit;
import io.gendurable.impl.support.Probe;
import io.gendurable.testing.DrainOptions;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Inline execution on the test kit: chained steps in one task on committed state, what sends a
 * chain back through the queue, and a gate slot held across the chain. Limits: "slow" admits one
 * step an hour (the test clock stands still), "api" is a gate of two.
 */
@GenDurableTest(config = {"gendurable.rate-limits.slow.allowed=1", "gendurable.rate-limits.slow.period=PT1H",
        "gendurable.concurrency-limits.api.limit=2"})
class InlineExecutionTest {
    public record Count(int n) {
    }

    /** Five steps, each checking that the state it was handed is the committed one. */
    @DurableFsm(name = "inline5", inlineExecution = true)
    public static class InlineFive implements Fsm<Count> {
        Probe db;
        final List<String> mismatches = new CopyOnWriteArrayList<>();
        final Map<String, Integer> runs = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            runs.merge(ctx.id() + "/" + s.n(), 1, Integer::sum);
            if (db != null && s.n() % 2 == 1) {
                // Durability: the state this step runs with is already committed, row still executing.
                long committed = db.count("SELECT (state->>'n')::bigint FROM gen_durable WHERE id = " + ctx.id()
                        + " AND status = 'executing' AND step = '" + step + "'");
                if (committed != s.n()) {
                    mismatches.add(ctx.id() + ": committed " + committed + " but running " + s.n());
                }
            }
            return s.n() < 4 ? Outcome.next("s" + (s.n() + 1), new Count(s.n() + 1)) : Outcome.done(s);
        }
    }

    /** An inline FSM whose second move opts out, and whose third switches keys. */
    @DurableFsm(name = "mixed", inlineExecution = true)
    public static class Mixed implements Fsm<Count> {
        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            return switch (s.n()) {
                case 0 -> Outcome.next("b", new Count(1));
                case 1 -> Outcome.next("c", new Count(2)).inline(false);
                case 2 -> Outcome.next("d", new Count(3)).concurrencyKey("plain:" + ctx.id());
                case 3 -> Outcome.next("e", new Count(4)).rateLimit("slow");
                default -> Outcome.done(s);
            };
        }
    }

    /** Everything due, however many steps it takes (the default cap is a thousand). */
    private static final DrainOptions ALL = DrainOptions.defaults().maxSteps(10_000);

    @Test
    void an_inline_fsm_runs_its_steps_in_one_task_each_on_committed_state_with_one_pick_per_instance(DurableTesting t) {
        InlineFive fsm = new InlineFive();
        fsm.db = Kit.probe(t);
        t.register(fsm);
        Engine e = Kit.engine(t);
        // One thread runs them: more instances would add time, not interleavings.
        int instances = 40;
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            batch.add(NewInstance.of(InlineFive.class, new Count(0)));
        }
        e.insertAll(batch);
        t.drain(ALL);
        assertThat(fsm.db.count("SELECT count(*) FROM gen_durable WHERE status = 'done'")).isEqualTo(instances);
        assertThat(fsm.mismatches).isEmpty();
        assertThat(fsm.runs).hasSize(instances * 5).allSatisfy((k, v) -> assertThat(v).isEqualTo(1));
        // Claimed once each: the four continues never went back through the queue.
        assertThat(e.metrics().picked.sum()).isEqualTo(instances);
        assertThat(e.metrics().steps("next_inline")).isEqualTo(instances * 4);
        assertThat(fsm.db.count("SELECT count(*) FROM gen_durable WHERE locked_by IS NOT NULL")).isZero();
    }

    @Test
    void an_opt_out_and_a_switch_to_an_unconfigured_key_requeue_while_a_denied_rate_token_requeues_after_the_commit(
            DurableTesting t) {
        t.register(new Mixed());
        Engine e = Kit.engine(t);
        Probe db = Kit.probe(t);
        long first = e.insert(Mixed.class, new Count(0)).id();
        long second = e.insert(Mixed.class, new Count(0)).id();
        // The first to reach "e" takes the only token; the other stays runnable at "e", denied.
        t.drain(DrainOptions.defaults().collapseDelays(false));
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE status = 'done'")).isEqualTo(1);
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE status = 'runnable' AND step = 'e'")).isEqualTo(1);
        // a → b inline; b → c requeued (opt-out); c → d requeued (unconfigured key); d → e inline for the winner.
        assertThat(e.metrics().steps("next_inline")).isBetween(2L, 4L);
        assertThat(e.metrics().steps("next")).isGreaterThanOrEqualTo(4);
        assertThat(e.metrics().rateThrottled.sum()).isPositive();
        // nothing stays claimed
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE locked_by IS NOT NULL")).isZero();
        assertThat(List.of(first, second)).allSatisfy(id -> assertThat(
                db.count("SELECT count(*) FROM gen_durable WHERE id = " + id + " AND concurrency_key = 'plain:' || id"))
                .isEqualTo(1));
    }

    @Test
    void an_inline_chain_keeps_its_gate_slot_between_steps_and_gives_it_back_at_the_end(DurableTesting t) {
        t.register(new InlineFive());
        Engine e = Kit.engine(t);
        for (int i = 0; i < 6; i++) {
            e.insert(InlineFive.class, new Count(0), InsertOptions.builder().concurrencyKey("api:t").build());
        }
        t.drain();
        Probe db = Kit.probe(t);
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE status = 'done'")).isEqualTo(6);
        assertThat(e.metrics().steps("next_inline")).isEqualTo(6 * 4);
        assertThat(db.count("SELECT coalesce(sum(available), 2)::bigint FROM gen_durable_buckets WHERE key = 'api:t'"))
                .isEqualTo(2);
    }
}
