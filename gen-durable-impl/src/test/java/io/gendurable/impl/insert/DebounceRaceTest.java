package io.gendurable.impl.insert;

import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.impl.claim.ClaimSql;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.step.ClaimedRow;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.Fsms;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Debounced inserts racing across nodes, the interleavings forced: another node's transaction holds
 * an uncommitted write on the key's waiting row (its own debounced insert of the key, or a claim of
 * the waiting row), the engine's insert of the same key is seen blocked on it, then that
 * transaction commits or rolls back. Whatever the order, one instance per key waits, and the
 * insert answers the instance that will run its state:
 * <ul>
 * <li>the other insert commits: this insert moves its row ({@code debounced}); rolls back: this one inserts;</li>
 * <li>the claim commits: the claimed row is no longer waiting, this insert starts a new instance;
 *     the claim rolls back: this insert moves the waiting row.</li>
 * </ul>
 */
@EngineTest
class DebounceRaceTest {
    private static final Duration WINDOW = Duration.ofSeconds(30);
    private static final String FSM = Fsms.Noop.class.getName();

    @ParameterizedTest(name = "the other node''s {0} then {1}")
    @CsvSource({"insert, commit", "insert, rollback", "claim, commit", "claim, rollback"})
    void an_insert_blocked_on_another_node_s_uncommitted_write_answers_the_instance_that_runs_its_state(
            String other, String end, EngineHarness h) throws Exception {
        Engine node = h.start("a", c -> c.queues(Map.of()), new Fsms.Noop());
        DebouncedInsertSql sql = new DebouncedInsertSql(new SchemaName(h.schema()));
        ClaimSql claims = new ClaimSql(new SchemaName(h.schema()));
        InsertOptions options = InsertOptions.builder().debounce("k", WINDOW).build();
        Long waiting = other.equals("claim")
                ? node.insert(Fsms.Noop.class, new Fsms.Item(0), options).id()
                : null;
        try (Connection holder = h.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SET search_path TO " + h.schema());
            }
            long held;
            if (other.equals("insert")) {
                Instant now = Instant.now();
                held = sql.insertDebounced(holder, List.of(row(now.plus(WINDOW), "{\"n\": 1}")), now)[0].id();
            } else {
                Instant later = Instant.now().plus(WINDOW).plusSeconds(1);
                List<ClaimedRow> claimed = claims.claim(holder, "default", "b:default@1", 1, later,
                        later.plusSeconds(30), new String[0], new String[] {FSM + ":1"});
                assertThat(claimed).as("the other node claimed the waiting row").extracting(ClaimedRow::id).containsExactly(waiting);
                held = waiting;
            }

            Inserted answer = insertBlockedOn(h, holder, end, "the insert waits for the other node's uncommitted write on the key's row",
                    () -> node.insert(Fsms.Noop.class, new Fsms.Item(2), options));

            boolean movedHeld = other.equals("insert") == end.equals("commit");
            if (movedHeld) {
                assertThat(answer).as("it moved the waiting row").isEqualTo(new Inserted(held, false, true));
                assertThat(node.metrics().debounced.sum()).isEqualTo(1);
            } else {
                assertThat(answer.debounced()).as("a new instance").isFalse();
                assertThat(answer.id()).isNotEqualTo(held);
                assertThat(node.metrics().debounced.sum()).isZero();
            }
            assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE debounce_key = 'k' AND status = 'runnable'"))
                    .as("one instance of the key waits").isEqualTo(1);
            assertThat(h.queryString("SELECT state->>'n' FROM gen_durable WHERE status = 'runnable'"))
                    .as("with the last insert's state").isEqualTo("2");
            assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE status = 'executing'"))
                    .as("the committed claim keeps its row").isEqualTo(other.equals("claim") && end.equals("commit") ? 1 : 0);
        }
    }

    /**
     * An operator's reschedule of the waiting row on another node, written as a node of the previous
     * release writes it (it stamps {@code updated_at} only, knowing no debounce column), uncommitted
     * while the engine's insert of the key waits on it. Committed: the row keeps the operator's start
     * and state, and the insert starts a new instance. Rolled back: the insert moves the row.
     */
    @ParameterizedTest(name = "an old node''s reschedule, then {0}")
    @CsvSource({"commit", "rollback"})
    void an_insert_blocked_on_an_old_node_s_reschedule_of_the_waiting_row(String end, EngineHarness h) throws Exception {
        Engine node = h.start("a", c -> c.queues(Map.of()), new Fsms.Noop());
        InsertOptions options = InsertOptions.builder().debounce("k", WINDOW).build();
        long waiting = node.insert(Fsms.Noop.class, new Fsms.Item(0), options).id();
        Instant operatorsStart = Instant.now().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.MICROS);
        try (Connection holder = h.dataSource().getConnection()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("SET search_path TO " + h.schema());
                s.executeUpdate("UPDATE gen_durable SET eligible_at = '" + operatorsStart + "', updated_at = now()"
                        + " WHERE id = " + waiting + " AND status = 'runnable'");
            }
            Inserted answer = insertBlockedOn(h, holder, end, "the insert waits for the old node's uncommitted reschedule of the key's row",
                    () -> node.insert(Fsms.Noop.class, new Fsms.Item(2), options));
            if (end.equals("commit")) {
                assertThat(answer.debounced()).as("a new instance").isFalse();
                assertThat(h.queryString("SELECT state->>'n' || ' ' || (eligible_at = '" + operatorsStart
                        + "') FROM gen_durable WHERE id = " + waiting)).as("the rescheduled row keeps its state and start")
                        .isEqualTo("0 true");
                assertThat(h.queryString("SELECT state->>'n' FROM gen_durable WHERE id = " + answer.id())).isEqualTo("2");
            } else {
                assertThat(answer).isEqualTo(new Inserted(waiting, false, true));
                assertThat(h.queryLong("SELECT count(*) FROM gen_durable")).isEqualTo(1);
                assertThat(h.queryString("SELECT state->>'n' FROM gen_durable")).isEqualTo("2");
            }
        }
    }

    private static InsertSql.Row row(Instant eligibleAt, String state) {
        return new InsertSql.Row(FSM, 1, "start", state, "default", 0, eligibleAt, null, null, null, null, 1, null,
                null, null, null, "k", false);
    }

    /**
     * Runs {@code insert} on another thread, waits until it is blocked on {@code holder}'s
     * uncommitted write, ends that transaction ({@code end}: "commit" or "rollback") and answers
     * what the insert returned.
     */
    private static Inserted insertBlockedOn(EngineHarness h, java.sql.Connection holder, String end, String alias,
                                            java.util.function.Supplier<Inserted> insert) throws Exception {
        CompletableFuture<Inserted> running = CompletableFuture.supplyAsync(insert);
        await().alias(alias).atMost(Duration.ofSeconds(10)).until(() -> h.waitingOn(holder, "debounce_first") == 1);
        if (end.equals("commit")) {
            holder.commit();
        } else {
            holder.rollback();
        }
        return running.get(10, TimeUnit.SECONDS);
    }
}
