package io.gendurable.impl.fsm;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import io.gendurable.impl.support.Kit;
import io.gendurable.impl.support.Probe;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.GenDurableTest;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** FSM versions and rows no FSM registered here can run: each rule on one drain of the test kit. */
class FsmVersionTest {
    public record Item(int n) {
    }

    @DurableFsm(name = "versioned", version = 2)
    public static class V2 implements Fsm<Item> {
        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            return Outcome.done(Map.of("version", ctx.fsmVersion()));
        }
    }

    @DurableFsm(name = "versioned", version = 1)
    public static class V1 extends V2 {
    }

    @GenDurableTest(fsms = {V1.class, V2.class})
    @org.junit.jupiter.api.Nested
    class BothVersions {
        @Test
        void inserts_take_the_newest_version_and_each_row_runs_with_the_version_it_was_written_by(GenDurable durable,
                                                                                                   DurableTesting t) {
            long id = durable.insert(V2.class, new Item(1)).id();
            long old = durable.insert(V1.class, new Item(2)).id();
            Kit.probe(t).exec("UPDATE gen_durable SET fsm_version = 1 WHERE id = " + old);
            t.drain();
            assertThat(t.instance(id).fsmVersion()).isEqualTo(2);
            t.assertDone(id, Map.of("version", 2));
            t.assertDone(old, Map.of("version", 1));
        }
    }

    /** Rows this engine cannot run, beside one it can: the bad row fails, the good one still runs. */
    @GenDurableTest(fsms = V2.class)
    @org.junit.jupiter.api.Nested
    class OnlyV2 {
        private void failsAlone(DurableTesting t, String corruption, String... errorParts) {
            long bad = t.durable().insert(V2.class, new Item(1)).id();
            long fine = t.durable().insert(V2.class, new Item(2)).id();
            Probe db = Kit.probe(t);
            db.exec("UPDATE gen_durable SET " + corruption + " WHERE id = " + bad);
            t.drain();
            t.assertDone(fine);
            String error = t.assertFailed(bad);
            for (String part : errorParts) {
                assertThat(error).contains(part);
            }
            assertThat(t.instance(bad).attempt()).isEqualTo(1);
            assertThat(db.count("SELECT count(*) FROM gen_durable WHERE status = 'executing'")).isZero();
        }

        /**
         * A row of an FSM name or version this node does not register is never claimed here (it
         * once was, and failed: a rolling upgrade's old nodes failed the new version's rows). It
         * stays runnable, untouched, for a node that has it; the drain runs the rest and ends.
         */
        private void waitsAlone(DurableTesting t, String corruption) {
            long other = t.durable().insert(V2.class, new Item(1)).id();
            long fine = t.durable().insert(V2.class, new Item(2)).id();
            Probe db = Kit.probe(t);
            db.exec("UPDATE gen_durable SET " + corruption + " WHERE id = " + other);
            t.drain();
            t.assertDone(fine);
            assertThat(db.count("SELECT count(*) FROM gen_durable WHERE id = " + other + " AND status = 'runnable'"
                    + " AND attempt = 1 AND last_error IS NULL AND claim_token IS NULL AND locked_by IS NULL")).isEqualTo(1);
        }

        @Test
        void a_row_of_a_version_this_node_lacks_is_left_runnable_for_a_node_that_has_it(DurableTesting t) {
            waitsAlone(t, "fsm_version = 9");
        }

        @Test
        void a_row_whose_fsm_name_this_node_lacks_is_left_runnable_for_a_node_that_has_it(DurableTesting t) {
            waitsAlone(t, "fsm = 'renamed.or.Removed'");
        }

        @Test
        void a_state_that_no_longer_reads_as_the_state_type_fails_the_row_not_the_scheduler(DurableTesting t) {
            failsAlone(t, "state = '{\"n\": \"not a number\"}'", "cannot be read as");
        }
    }
}
