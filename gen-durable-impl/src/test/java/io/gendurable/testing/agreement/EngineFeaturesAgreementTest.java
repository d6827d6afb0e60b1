package io.gendurable.testing.agreement;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static io.gendurable.testing.agreement.Kits.config;
import static io.gendurable.testing.agreement.Kits.kit;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Gates, FSM versions, correlation-key dedup, debounce and inline {@code next}: the same FSMs and calls on a
 * node and under the kit end the same (statuses, results, what each insert answered).
 */
class EngineFeaturesAgreementTest {

    private static final Duration HORIZON = Duration.ofMinutes(10);

    /** Two steps, gated by its concurrency key. */
    @DurableFsm(name = "agree-gated")
    public static class Gated implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            return step.equals("start") ? Outcome.next("second", s + ">start") : Outcome.done(s + ">second");
        }
    }

    @DurableFsm(name = "agree-versioned", version = 1)
    public static class V1 implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            return Outcome.done(s + " by v" + ctx.fsmVersion());
        }
    }

    @DurableFsm(name = "agree-versioned", version = 2)
    public static class V2 extends V1 {
    }

    /** Inline: start, a, b (retried once), done with the path and attempts. */
    @DurableFsm(name = "agree-inline", inlineExecution = true)
    public static class Inline implements Fsm<String> {
        @Override
        public Outcome step(String step, String s, StepContext ctx) {
            String path = s + ">" + step + "#" + ctx.attempt();
            return switch (step) {
                case "start" -> Outcome.next("a", path);
                case "a" -> Outcome.next("b", path);
                case "b" -> ctx.attempt() == 1 ? Outcome.retry(Duration.ofSeconds(3), path) : Outcome.done(path);
                default -> Outcome.stop("unknown step " + step);
            };
        }
    }

    private static List<String> outcomes(List<InstanceSnapshot> rows) {
        return rows.stream().map(s -> s.status() + " " + (s.result() == null ? s.lastError() : s.result().json())).toList();
    }

    /** Runs {@code scenario} on a node (time walked to the horizon) and under the kit (a drain). @return node, kit */
    private static List<List<String>> both(String hint, UnaryOperator<io.gendurable.impl.config.EngineConfig.Builder> tweak,
                                           String[] kitConfig, Function<GenDurable, List<Long>> scenario, Fsm<?>... fsms) {
        Instant start = Kits.start();
        List<String> node;
        try (Production p = new Production(hint, new TestClock(start), tweak, fsms)) {
            List<Long> ids = scenario.apply(p.engine);
            p.runUntil(start.plus(HORIZON), HORIZON);
            node = outcomes(ids.stream().map(p::instance).toList());
        }
        try (DurableTesting t = kit(new TestClock(start), kitConfig, fsms)) {
            List<Long> ids = scenario.apply(t.durable());
            t.drain();
            return List.of(node, outcomes(ids.stream().map(t::instance).toList()));
        }
    }

    @Test
    void rows_of_a_gated_key_all_run_through_their_steps() {
        InsertOptions gated = InsertOptions.builder().concurrencyKey("api:t").build();
        List<List<String>> r = both("agree-gate",
                b -> b.limits(new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", 1, 1)))),
                config("gendurable.concurrency-limits.api.limit=1"),
                d -> List.of(d.insert(Gated.class, "one", gated).id(), d.insert(Gated.class, "two", gated).id(),
                        d.insert(Gated.class, "three", gated).id()),
                new Gated());
        assertThat(r.get(0)).as("on a node").containsExactly("DONE \"one>start>second\"", "DONE \"two>start>second\"",
                "DONE \"three>start>second\"");
        assertThat(r.get(1)).as("under the kit").isEqualTo(r.get(0));
    }

    @Test
    void a_row_inserted_as_version_1_runs_as_version_1_beside_new_ones_of_version_2() {
        Instant start = Kits.start();
        List<String> node;
        try (Production p = new Production("agree-versions", new TestClock(start), UnaryOperator.identity(), new V1(), new V2())) {
            long old = p.insertOnly(new V1()).insert(V1.class, "old").id();  // an older node's insert
            long fresh = p.engine.insert(V2.class, "new").id();
            p.runUntil(start.plus(HORIZON), HORIZON);
            node = outcomes(List.of(p.instance(old), p.instance(fresh)));
        }
        assertThat(node).as("on a node").containsExactly("DONE \"old by v1\"", "DONE \"new by v2\"");

        try (DurableTesting t = kit(new TestClock(start), config(), new V1())) {
            long old = t.durable().insert(V1.class, "old").id();
            t.register(new V2());
            long fresh = t.durable().insert(V2.class, "new").id();
            t.drain();
            assertThat(outcomes(List.of(t.instance(old), t.instance(fresh)))).as("under the kit").isEqualTo(node);
        }
    }

    @Test
    void a_correlation_key_dedups_inserts_while_its_instance_runs_and_not_after() {
        List<String> answers = new ArrayList<>();
        InsertOptions keyed = InsertOptions.builder().correlationKey("order-7").build();
        Function<GenDurable, List<Long>> scenario = d -> {
            Inserted first = d.insert(Gated.class, "first", keyed);
            Inserted again = d.insert(Gated.class, "again", keyed);
            answers.add("again: duplicate=" + again.duplicate() + " same=" + (again.id() == first.id()));
            return List.of(first.id());
        };
        Instant start = Kits.start();
        List<String> node = new ArrayList<>();
        try (Production p = new Production("agree-dedup", new TestClock(start), UnaryOperator.identity(), new Gated())) {
            long first = scenario.apply(p.engine).get(0);
            p.runUntil(start.plus(HORIZON), HORIZON);
            Inserted after = p.engine.insert(Gated.class, "after", keyed);
            node.addAll(answers);
            node.add("after done: duplicate=" + after.duplicate() + " same=" + (after.id() == first));
            node.addAll(outcomes(List.of(p.instance(first))));
        }
        assertThat(node).as("on a node").startsWith("again: duplicate=true same=true");

        answers.clear();
        try (DurableTesting t = kit(new TestClock(start), config(), new Gated())) {
            long first = scenario.apply(t.durable()).get(0);
            t.drain();
            Inserted after = t.durable().insert(Gated.class, "after", keyed);
            List<String> kit = new ArrayList<>(answers);
            kit.add("after done: duplicate=" + after.duplicate() + " same=" + (after.id() == first));
            kit.addAll(outcomes(List.of(t.instance(first))));
            assertThat(kit).as("under the kit").isEqualTo(node);
        }
    }

    @Test
    void debounced_inserts_answer_and_run_the_same() {
        // two bursts of one key, the second after the first instance ran, and a FIRST key beside them
        InsertOptions last = InsertOptions.builder().debounce("doc", Duration.ofSeconds(30)).build();
        InsertOptions first = InsertOptions.builder().debounce("cfg", Duration.ofSeconds(30), io.gendurable.Debounce.State.FIRST).build();
        Function<GenDurable, List<Long>> burst = d -> {
            Inserted a = d.insert(V1.class, "a1", last);
            Inserted b = d.insert(V1.class, "a2", last);
            Inserted c = d.insert(V1.class, "c1", first);
            Inserted e = d.insert(V1.class, "c2", first);
            assertThat(List.of(a.debounced(), b.debounced(), c.debounced(), e.debounced())).containsExactly(false, true, false, true);
            assertThat(b.id()).isEqualTo(a.id());
            assertThat(e.id()).isEqualTo(c.id());
            return List.of(a.id(), c.id());
        };
        Instant start = Kits.start();
        List<String> node;
        try (Production p = new Production("agree-debounce", new TestClock(start), UnaryOperator.identity(), new V1())) {
            List<Long> ids = new ArrayList<>(burst.apply(p.engine));
            p.runUntil(start.plus(HORIZON), HORIZON);
            Inserted again = p.engine.insert(V1.class, "b1", last);
            assertThat(again.debounced()).as("on a node, after the first ran").isFalse();
            ids.add(again.id());
            p.runUntil(start.plus(HORIZON.multipliedBy(2)), HORIZON);
            node = outcomes(ids.stream().map(p::instance).toList());
        }
        assertThat(node).as("on a node").containsExactly("DONE \"a2 by v1\"", "DONE \"c1 by v1\"", "DONE \"b1 by v1\"");

        try (DurableTesting t = kit(new TestClock(start), config(), new V1())) {
            List<Long> ids = new ArrayList<>(burst.apply(t.durable()));
            t.drain();
            Inserted again = t.durable().insert(V1.class, "b1", last);
            assertThat(again.debounced()).as("under the kit, after the first ran").isFalse();
            ids.add(again.id());
            t.drain();
            assertThat(outcomes(ids.stream().map(t::instance).toList())).as("under the kit").isEqualTo(node);
        }
    }

    @Test
    void an_inline_chain_with_a_retry_ends_the_same() {
        List<List<String>> r = both("agree-inline", UnaryOperator.identity(), config(),
                d -> List.of(d.insert(Inline.class, "").id()), new Inline());
        assertThat(r.get(0)).as("on a node").containsExactly("DONE \">start#1>a#1>b#1>b#2\"");
        assertThat(r.get(1)).as("under the kit").isEqualTo(r.get(0));
    }
}
