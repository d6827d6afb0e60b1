package io.gendurable.impl.control;

import io.gendurable.InstanceQuery;
import io.gendurable.Status;
import io.gendurable.impl.claim.ClaimSql;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.flush.FlushSql;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.step.ClaimedRow;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every operator action on an instance in every state, as a table (docs/operations.md, "What each
 * action does in each state", shows the same one). Each row is set up with the engine's own
 * statements on a fixed clock (no engine loop runs): {@code runnable}; {@code executing}, claimed
 * and its step running; {@code flushing}, claimed and its step's code returned, its outcome
 * ({@code done}) waiting for the flush, which runs after the action; {@code parked} on a signal;
 * {@code awaiting-children}, a parent waiting for one runnable child; {@code done}, {@code failed},
 * {@code cancelled}. The expected cell is the status the row ends in (after the flush, for
 * {@code flushing}), with {@code +requested} when the action was a cancel request, {@code +child
 * cancelled} when the child went too, {@code gone} when it was deleted, {@code kept} when a purge
 * left it, or the exception the action threw (then nothing changed).
 */
@EngineTest
class ActionStateTableTest {
    private static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");
    private static final String W = "table:default@1";

    private EngineHarness h;
    private Engine engine;
    private ClaimSql claimSql;
    private FlushSql flushSql;

    private void up(EngineHarness h) {
        this.h = h;
        h.start("table", c -> c.queues(Map.of())).stop();  // migrates the schema
        engine = h.build("table-ops", c -> c.queues(Map.of()), () -> NOW);
        SchemaName schema = new SchemaName(h.schema());
        claimSql = new ClaimSql(schema);
        flushSql = FlushSql.in(new Statements(schema));
    }

    /** state | action | what follows */
    private static final String TABLE = """
            runnable          | cancel           | cancelled
            executing         | cancel           | executing +requested
            flushing          | cancel           | cancelled +requested
            parked            | cancel           | cancelled
            awaiting-children | cancel           | cancelled
            done              | cancel           | InstanceStateException
            failed            | cancel           | InstanceStateException
            cancelled         | cancel           | InstanceStateException
            runnable          | cancel-tree      | cancelled
            executing         | cancel-tree      | executing +requested
            flushing          | cancel-tree      | cancelled +requested
            parked            | cancel-tree      | cancelled
            awaiting-children | cancel-tree      | cancelled +child cancelled
            done              | cancel-tree      | InstanceStateException
            failed            | cancel-tree      | InstanceStateException
            cancelled         | cancel-tree      | InstanceStateException
            runnable          | retry            | InstanceStateException
            executing         | retry            | InstanceStateException
            flushing          | retry            | InstanceStateException
            parked            | retry            | InstanceStateException
            awaiting-children | retry            | InstanceStateException
            done              | retry            | InstanceStateException
            failed            | retry            | runnable
            cancelled         | retry            | runnable
            runnable          | run-now          | runnable
            executing         | run-now          | InstanceStateException
            flushing          | run-now          | InstanceStateException
            parked            | run-now          | InstanceStateException
            awaiting-children | run-now          | InstanceStateException
            done              | run-now          | InstanceStateException
            failed            | run-now          | InstanceStateException
            cancelled         | run-now          | InstanceStateException
            runnable          | reschedule       | runnable
            executing         | reschedule       | InstanceStateException
            parked            | reschedule       | InstanceStateException
            awaiting-children | reschedule       | InstanceStateException
            flushing          | reschedule       | InstanceStateException
            done              | reschedule       | InstanceStateException
            failed            | reschedule       | InstanceStateException
            cancelled         | reschedule       | InstanceStateException
            runnable          | change-priority  | runnable
            executing         | change-priority  | InstanceStateException
            parked            | change-priority  | InstanceStateException
            awaiting-children | change-priority  | InstanceStateException
            flushing          | change-priority  | InstanceStateException
            done              | change-priority  | InstanceStateException
            failed            | change-priority  | InstanceStateException
            cancelled         | change-priority  | InstanceStateException
            runnable          | purge            | runnable kept
            executing         | purge            | executing kept
            flushing          | purge            | done kept
            parked            | purge            | awaiting_signal kept
            awaiting-children | purge            | awaiting_children kept
            done              | purge            | gone
            failed            | purge            | gone
            cancelled         | purge            | gone
            """;

    @Test
    void every_action_on_an_instance_in_every_state_does_what_the_table_says(EngineHarness h) throws SQLException {
        up(h);
        SoftAssertions soft = new SoftAssertions();
        int cells = 0;
        for (String line : TABLE.strip().split("\n")) {
            String[] cell = line.split("\\|");
            String state = cell[0].strip();
            String action = cell[1].strip();
            h.exec("DELETE FROM gen_durable");
            soft.assertThat(cell(state, action)).as(action + " of an instance " + state).isEqualTo(cell[2].strip());
            cells++;
        }
        soft.assertAll();
        assertThat(cells).as("every action in every state").isEqualTo(7 * 8);
    }

    private String cell(String state, String action) throws SQLException {
        long id = insert(state);
        ClaimedRow claim = null;
        if (state.equals("executing") || state.equals("flushing")) {
            List<ClaimedRow> claimed = tx(c -> claimSql.claim(c, "default", W, 1, NOW, NOW.plus(Duration.ofMinutes(5)), new String[0], new String[]{"table:1", "table-child:1"}));
            assertThat(claimed).hasSize(1);
            claim = claimed.get(0);
        }
        String outcome;
        try {
            outcome = act(action, id);
        } catch (RuntimeException e) {
            outcome = e.getClass().getSimpleName();
        }
        if (state.equals("flushing")) {
            Transition.Claim c = new Transition.Claim(claim.id(), W, claim.claimToken());
            tx(conn -> flushSql.flush(conn, List.of(new Transition.Finish(c, Status.DONE, "{}", null, null, null)), NOW));
        }
        return outcome.endsWith("Exception") ? outcome : observe(id, outcome);
    }

    private String act(String action, long id) {
        var ops = engine.operations();
        switch (action) {
            case "cancel" -> {
                return ops.cancel(id, "table").pending() ? "+requested" : "";
            }
            case "cancel-tree" -> {
                var c = ops.cancel(id, "table", true);
                return (c.pending() ? "+requested" : "") + (c.childrenCancelled() > 0 ? "+child cancelled" : "");
            }
            case "retry" -> ops.retry(id);
            case "run-now" -> ops.runNow(id);
            case "reschedule" -> ops.reschedule(id, NOW.plusSeconds(60));
            case "change-priority" -> ops.changePriority(id, 5);
            case "purge" -> ops.purge(InstanceQuery.builder().fsm("table").build());
            default -> throw new IllegalArgumentException(action);
        }
        return action.equals("purge") ? "purge" : "";
    }

    private String observe(long id, String outcome) {
        boolean exists = h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + id) == 1;
        if (outcome.equals("purge")) {
            return exists ? h.queryString("SELECT status::text FROM gen_durable WHERE id = " + id) + " kept" : "gone";
        }
        String status = h.queryString("SELECT status::text FROM gen_durable WHERE id = " + id);
        return (status + " " + outcome.replace("+requested+", "+requested +")).trim();
    }

    private long insert(String state) {
        String status = switch (state) {
            case "executing", "flushing" -> "runnable";
            case "parked" -> "awaiting_signal";
            case "awaiting-children" -> "awaiting_children";
            default -> state;
        };
        long id = h.queryLong("INSERT INTO gen_durable (fsm, step, state, status, eligible_at, awaits, children_pending) VALUES "
                + "('table', 'a', '{}', '" + status + "', '" + NOW.minusSeconds(60) + "', "
                + (state.equals("parked") ? "ARRAY['go']" : "NULL") + ", " + (state.equals("awaiting-children") ? 1 : 0)
                + ") RETURNING id");
        if (state.equals("awaiting-children")) {
            h.queryLong("INSERT INTO gen_durable (fsm, step, state, parent_id, eligible_at) VALUES ('table-child', 'a', '{}', "
                    + id + ", '" + NOW.plusSeconds(3600) + "') RETURNING id");
        }
        return id;
    }

    private <T> T tx(EngineHarness.Work<T> work) throws SQLException {
        return h.inTransaction(work);
    }
}
