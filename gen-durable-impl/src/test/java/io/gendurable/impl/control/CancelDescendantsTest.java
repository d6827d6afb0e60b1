package io.gendurable.impl.control;

import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms.Item;
import io.gendurable.impl.support.Fsms.Noop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A cancel with descendants against a descendant's fan-out committing mid-cancel. */
@EngineTest
class CancelDescendantsTest {
    EngineHarness h;
    Engine e;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
        e = h.start("cancel-tree", c -> c.queues(Map.of()), new Noop());
    }

    @AfterEach
    void down() {
        Controls.afterDescendantsListed = () -> { };
    }

    /**
     * A awaits its child B; B is live. An operator cancels A with its descendants. The cancel
     * lists A's live descendants (B) without locks; B's fan-out of C commits (forced through
     * {@link Controls#afterDescendantsListed}: C inserted with B as its parent, B parked awaiting
     * it); only then does the cancel lock the listed rows. B was cancelled as "awaiting children",
     * C was never in the list and ran to its end. The cancel re-walks the tree after locking until
     * no live descendant it has not locked remains: a locked descendant cannot commit a fan-out
     * any more, so once the walk is closed no live descendant survives the commit.
     */
    @Test
    void the_children_of_a_descendant_that_fans_out_mid_cancel_are_cancelled_too() {
        long a = e.insert(Noop.class, new Item(1)).id();
        long b = e.insert(Noop.class, new Item(2)).id();
        h.exec("UPDATE gen_durable SET status = 'awaiting_children', children_pending = 1 WHERE id = " + a);
        h.exec("UPDATE gen_durable SET parent_id = " + a + " WHERE id = " + b);
        long[] c = new long[1];
        Controls.afterDescendantsListed = () -> {
            Controls.afterDescendantsListed = () -> { };
            c[0] = e.insert(Noop.class, new Item(3)).id();
            h.exec("UPDATE gen_durable SET parent_id = " + b + " WHERE id = " + c[0]);
            h.exec("UPDATE gen_durable SET status = 'awaiting_children', children_pending = 1 WHERE id = " + b);
        };

        e.operations().cancel(a, "the whole tree", true);

        assertThat(c[0]).as("precondition: the fan-out committed mid-cancel").isPositive();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id IN (" + a + ", " + b + ", " + c[0]
                + ") AND status <> 'cancelled'")).as("no live descendant survives").isZero();
    }
}
