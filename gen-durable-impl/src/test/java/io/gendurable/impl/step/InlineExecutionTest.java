package io.gendurable.impl.step;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@EngineTest
class InlineExecutionTest {
    public record Count(int n) {
    }

    /** Five steps, each checking that the state it was handed is the committed one. */
    @DurableFsm(name = "inline5", inlineExecution = true)
    public static class InlineFive implements Fsm<Count> {
        EngineHarness h;
        final List<String> mismatches = new CopyOnWriteArrayList<>();
        final Map<String, Integer> runs = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Count s, StepContext ctx) {
            runs.merge(ctx.id() + "/" + s.n(), 1, Integer::sum);
            if (h != null && s.n() % 2 == 1) {
                // Durability: the state this step runs with is already committed, row still executing.
                long committed = h.queryLong("SELECT (state->>'n')::bigint FROM gen_durable WHERE id = " + ctx.id()
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

    @Test
    void an_inline_fsm_runs_its_steps_in_one_task_each_on_committed_state_with_one_pick_per_instance(EngineHarness h) {
        InlineFive fsm = new InlineFive();
        fsm.h = h;
        Engine web = h.start("web", c -> c.queues(Map.of()), fsm);
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            batch.add(NewInstance.of(InlineFive.class, new Count(0)));
        }
        web.insertAll(batch);
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 16)), fsm);
        await().atMost(Duration.ofSeconds(60)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 200);
        assertThat(fsm.mismatches).isEmpty();
        assertThat(fsm.runs).hasSize(200 * 5).allSatisfy((k, v) -> assertThat(v).isEqualTo(1));
        // Picked once each: the four continues never went back through the queue.
        assertThat(e.metrics().picked.sum()).isEqualTo(200);
        assertThat(e.metrics().steps("next_inline")).isEqualTo(200 * 4);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE locked_by IS NOT NULL")).isZero();
    }

    @Test
    void an_opt_out_and_a_switch_to_an_unconfigured_key_requeue_while_a_denied_rate_token_requeues_after_the_commit(EngineHarness h) {
        Mixed fsm = new Mixed();
        LimitsConfig limits = new LimitsConfig(
                Map.of("slow", new LimitsConfig.RateLimit("slow", 1, Duration.ofHours(1), 1, 1)), Map.of());
        Engine e = h.start("n1", c -> c.limits(limits), fsm);
        long first = e.insert(Mixed.class, new Count(0)).id();
        long second = e.insert(Mixed.class, new Count(0)).id();
        // The first to reach "e" takes the only token; the other stays runnable at "e", denied.
        await().atMost(Duration.ofSeconds(20)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 1
                        && h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'runnable' AND step = 'e'") == 1);
        // a → b inline; b → c requeued (opt-out); c → d requeued (unconfigured key); d → e inline for the winner.
        assertThat(e.metrics().steps("next_inline")).isBetween(2L, 4L);
        assertThat(e.metrics().steps("next")).isGreaterThanOrEqualTo(4);
        assertThat(e.metrics().rateThrottled.sum()).isPositive();
        // nothing stays claimed (a poll may claim the denied row for the instant its admission takes)
        await().atMost(Duration.ofSeconds(5)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE locked_by IS NOT NULL") == 0);
        assertThat(List.of(first, second)).allSatisfy(id -> assertThat(
                h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + id + " AND concurrency_key = 'plain:' || id"))
                .isEqualTo(1));
    }

    @Test
    void an_inline_chain_keeps_its_gate_slot_between_steps_and_gives_it_back_at_the_end(EngineHarness h) {
        InlineFive fsm = new InlineFive();
        LimitsConfig limits = new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", 2, 1)));
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 8)).limits(limits), fsm);
        for (int i = 0; i < 6; i++) {
            e.insert(InlineFive.class, new Count(0), InsertOptions.builder().concurrencyKey("api:t").build());
        }
        await().atMost(Duration.ofSeconds(30)).until(() ->
                h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'done'") == 6);
        assertThat(e.metrics().steps("next_inline")).isEqualTo(6 * 4);
        await().atMost(Duration.ofSeconds(5)).until(() ->
                h.queryLong("SELECT coalesce(sum(available), 2)::bigint FROM gen_durable_buckets WHERE key = 'api:t'") == 2);
    }
}
