package io.gendurable.impl.admission;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.support.Kit;
import io.gendurable.impl.support.Probe;
import io.gendurable.testing.DrainResult;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A mid-flight switch onto a gate that has no counter rows yet: the gate is cold (never used, or
 * swept while idle), and a cold gate counts as full, so the switched step is admitted by the very
 * claim that takes it. One drain therefore runs every instance to its end (the kit's quiescence:
 * nothing runnable and due is left behind), and the gate's counters exist afterwards with every
 * slot given back.
 */
@GenDurableTest(fsms = ColdGateSwitchTest.Switches.class, config = "gendurable.concurrency-limits.api.limit=2")
class ColdGateSwitchTest {
    /** An unkeyed first step that moves on to a step under the gate {@code api}, per tenant. */
    @DurableFsm(name = "switches")
    public static class Switches implements Fsm<String> {
        @Override
        public Outcome step(String step, String tenant, StepContext ctx) {
            return switch (step) {
                case "start" -> Outcome.next("call", tenant).concurrencyKey("api:" + tenant);
                case "call" -> Outcome.done(ctx.concurrencyKey().orElse("none"));
                default -> Outcome.stop("unknown step " + step);
            };
        }
    }

    @Test
    void one_drain_runs_a_switch_onto_a_cold_gate_to_the_end(GenDurable durable, DurableTesting t) {
        Probe db = Kit.probe(t);
        assertThat(db.count("SELECT count(*) FROM gen_durable_buckets WHERE key LIKE 'api%'"))
                .as("no counters yet").isZero();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(durable.insert(Switches.class, "t" + (i % 2)).id());
        }
        DrainResult r = t.drain();
        assertThat(r.steps()).hasSize(10);
        for (int i = 0; i < ids.size(); i++) {
            t.assertDone(ids.get(i), "api:t" + (i % 2));
        }
        assertThat(db.count("SELECT count(*) FROM gen_durable_buckets WHERE key LIKE 'api%'"))
                .as("the counters the admission created").isPositive();
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE concurrency_shard IS NOT NULL"))
                .as("every gate slot given back").isZero();
    }
}
