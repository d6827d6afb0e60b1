package io.gendurable.impl.insert;

import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A rejected batch writes nothing, also when it needed a second round. A batch whose duplicate's
 * holder ended between the insert's conflict and its read of the holder is inserted again for
 * that position in another round; outside a caller's transaction each round committed on its own,
 * so a batch whose later round failed threw with its first round's rows written. Here the holder
 * ends right before that read (a test hook), and the second round fails before its statement.
 */
@EngineTest
class BatchAtomicityTest {
    public record Item(int n) {
    }

    public static class Noop implements io.gendurable.Fsm<Item> {
        @Override
        public io.gendurable.Outcome step(String step, Item item, io.gendurable.StepContext ctx) {
            return io.gendurable.Outcome.done();
        }
    }

    @AfterEach
    void hooks() {
        InsertSql.beforeHolderRead = () -> { };
        Inserter.beforeRetryRound = () -> { };
    }

    @Test
    void a_batch_whose_second_round_fails_leaves_none_of_its_rows(EngineHarness h) {
        Engine e = h.start("n1", c -> c.queues(Map.of()), new Noop());
        long holder = h.queryLong("INSERT INTO gen_durable (fsm, step, state, queue, correlation_key, correlation_scope) VALUES "
                + "('" + Noop.class.getName() + "', 'a', '{}', 'none', 'k', '{runnable,executing,awaiting_signal,awaiting_children}') RETURNING id");
        AtomicBoolean ended = new AtomicBoolean();
        InsertSql.beforeHolderRead = () -> {
            if (ended.compareAndSet(false, true)) {
                h.exec("UPDATE gen_durable SET status = 'done' WHERE id = " + holder);  // the holder ends meanwhile
            }
        };
        Inserter.beforeRetryRound = () -> {
            throw new IllegalStateException("the second round fails");
        };
        List<NewInstance> batch = List.of(
                new NewInstance(Noop.class.getName(), new Item(1), InsertOptions.builder().queue("none").build()),
                new NewInstance(Noop.class.getName(), new Item(2), InsertOptions.builder().queue("none").correlationKey("k").build()));
        assertThatThrownBy(() -> e.insertAll(batch)).hasMessageContaining("the second round fails");
        assertThat(ended).isTrue();
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id <> " + holder))
                .as("rows of the rejected batch").isZero();
    }

    /** Fans out one child with correlation key {@code k}, then joins. */
    public static class Fans implements io.gendurable.Fsm<Item> {
        @Override
        public io.gendurable.Outcome step(String step, Item item, io.gendurable.StepContext ctx) {
            if (step.equals("start")) {
                return io.gendurable.Outcome.scheduleChildren(List.of(new NewInstance(Noop.class.getName(), new Item(7),
                        InsertOptions.builder().queue("none").correlationKey("k").build())), "joined", item);
            }
            return io.gendurable.Outcome.done(Map.of("children", ctx.children().size()));
        }
    }

    /**
     * A fan-out child whose correlation key's holder ended between the insert's conflict and its
     * read of the holder is inserted (in the flush's transaction), as the public insert does: it
     * was neither inserted nor counted as landed, so the parent went on at once without it.
     */
    @Test
    void a_fan_out_child_whose_keys_holder_ended_mid_statement_is_inserted_and_awaited(EngineHarness h) {
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 2)), new Noop(), new Fans());
        long holder = h.queryLong("INSERT INTO gen_durable (fsm, step, state, queue, correlation_key, correlation_scope) VALUES "
                + "('" + Noop.class.getName() + "', 'a', '{}', 'none', 'k', '{runnable,executing,awaiting_signal,awaiting_children}') RETURNING id");
        AtomicBoolean ended = new AtomicBoolean();
        InsertSql.beforeHolderRead = () -> {
            if (ended.compareAndSet(false, true)) {
                h.exec("UPDATE gen_durable SET status = 'done' WHERE id = " + holder);
            }
        };
        long p = e.insert(Fans.class, new Item(0)).id();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> e.find(p).orElseThrow().status() != io.gendurable.Status.RUNNABLE
                        && e.find(p).orElseThrow().status() != io.gendurable.Status.EXECUTING);
        assertThat(ended).isTrue();
        assertThat(e.find(p).orElseThrow().status()).as("the parent waits for its child").isEqualTo(io.gendurable.Status.AWAITING_CHILDREN);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE parent_id = " + p)).isEqualTo(1);
    }
}
