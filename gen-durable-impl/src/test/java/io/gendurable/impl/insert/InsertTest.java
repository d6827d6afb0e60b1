package io.gendurable.impl.insert;

import io.gendurable.Fsm;
import io.gendurable.FsmNames;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.Kit;
import io.gendurable.impl.support.Probe;
import io.gendurable.impl.support.StatementRecordingDataSource;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Inserts through the engine's public API, checked in SQL: correlation dedup, batch answers in
 * input order, one statement per batch, JSON objects, and validation that writes nothing.
 * On the test kit, whose engine the test's statement recorder sits under: rows that must stay live
 * go to the queue {@code parked}, which the drains here leave alone.
 */
class InsertTest {
    private static final String PARKED = "parked";

    public record Item(String name) {
    }

    /** Completes with its state; while a step whose name has an action runs, the action runs first. */
    public static class Holder implements Fsm<Item> {
        final Map<String, Runnable> during = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, Item item, StepContext ctx) {
            during.getOrDefault(item.name(), () -> { }).run();
            return Outcome.done(item);
        }
    }

    /** JSON-B cannot write it: its only property's getter throws. */
    public static class Unwritable {
        public String getBoom() {
            throw new IllegalStateException("no JSON for you");
        }
    }

    /** One engine and schema for the class, as in production: each test uses its own keys and counts rows relatively. */
    static DurableTesting t;
    static Engine engine;
    static Probe db;
    static StatementRecordingDataSource recorder;
    static final Holder holder = new Holder();

    @BeforeAll
    static void up() {
        recorder = new StatementRecordingDataSource(SharedTestDatabase.dataSource());
        t = DurableTesting.builder().schemaHint("insert").dataSource(recorder).fsm(holder).build();
        engine = Kit.engine(t);
        db = Kit.probe(t);
    }

    @AfterAll
    static void down() {
        t.close();
    }

    private static InsertOptions.Builder keyed(String key) {
        return InsertOptions.builder().correlationKey(key);
    }

    private static Status statusOf(long id) {
        return engine.find(id).orElseThrow().status();
    }

    private static long rows() {
        return db.count("SELECT count(*) FROM gen_durable");
    }

    @Test
    void a_second_insert_with_a_live_key_is_a_duplicate_answering_the_holders_id_and_the_key_is_free_once_the_holder_is_done() {
        // While the holder's step runs (the row executing), a second insert with its key: what it answers and writes.
        List<Object> duringTheStep = new ArrayList<>();
        holder.during.put("first", () -> {
            long holderId = engine.find("order:1").orElseThrow().id();
            duringTheStep.add(statusOf(holderId));
            duringTheStep.add(engine.insert(Holder.class, new Item("second"), keyed("order:1").build()));
            duringTheStep.add(db.count("SELECT count(*) FROM gen_durable WHERE correlation_key = 'order:1'"));
            duringTheStep.add(db.string("SELECT state->>'name' FROM gen_durable WHERE id = ?", holderId));
        });
        Inserted first = engine.insert(Holder.class, new Item("first"), keyed("order:1").build());
        assertThat(first.duplicate()).isFalse();

        t.drain("default");

        assertThat(duringTheStep).containsExactly(Status.EXECUTING, new Inserted(first.id(), true), 1L, "first");
        t.assertDone(first.id(), new Item("first"));

        Inserted third = engine.insert(Holder.class, new Item("third"), keyed("order:1").build());

        assertThat(third.duplicate()).isFalse();
        assertThat(third.id()).isNotEqualTo(first.id());
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE correlation_key = 'order:1'")).isEqualTo(2);
        t.drain("default");
        t.assertDone(third.id(), new Item("third"));
    }

    @Test
    void a_duplicate_of_a_runnable_holder_answers_its_id_and_writes_nothing() {
        Inserted first = engine.insert(Holder.class, new Item("p1"), keyed("parked:1").queue(PARKED).build());
        long before = rows();

        Inserted again = engine.insert(Holder.class, new Item("p2"), keyed("parked:1").queue(PARKED).build());

        assertThat(again).isEqualTo(new Inserted(first.id(), true));
        assertThat(rows()).isEqualTo(before);
        assertThat(statusOf(first.id())).isEqualTo(Status.RUNNABLE);
    }

    @Test
    void a_correlation_scope_that_includes_done_keeps_the_key_held_after_the_holder_is_done() {
        InsertOptions withDone = keyed("order:2").correlationScope(Status.RUNNABLE, Status.EXECUTING,
                Status.AWAITING_SIGNAL, Status.AWAITING_CHILDREN, Status.DONE).build();
        Inserted first = engine.insert(Holder.class, new Item("kept"), withDone);
        t.drain("default");
        t.assertDone(first.id());

        Inserted again = engine.insert(Holder.class, new Item("rejected"), keyed("order:2").build());
        Inserted againWithDone = engine.insert(Holder.class, new Item("rejected too"), withDone);

        assertThat(again).isEqualTo(new Inserted(first.id(), true));
        assertThat(againWithDone).isEqualTo(new Inserted(first.id(), true));
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE correlation_key = 'order:2'")).isEqualTo(1);
        assertThat(engine.find("order:2")).map(InstanceSnapshot::id).contains(first.id());
    }

    @Test
    void insert_all_answers_in_input_order_with_duplicates_inside_the_batch_and_against_live_holders() {
        Inserted pre = engine.insert(Holder.class, new Item("pre"), keyed("batch:pre").queue(PARKED).build());
        String fsm = FsmNames.nameOf(Holder.class);
        List<NewInstance> batch = List.of(
                new NewInstance(fsm, new Item("a0"), keyed("batch:x").queue(PARKED).build()),
                new NewInstance(fsm, new Item("a1"), InsertOptions.builder().queue(PARKED).build()),
                new NewInstance(fsm, new Item("a2"), keyed("batch:x").queue(PARKED).build()),
                new NewInstance(fsm, new Item("a3"), keyed("batch:pre").queue(PARKED).build()),
                new NewInstance(fsm, new Item("a4"), keyed("batch:a").queue(PARKED).build()),
                new NewInstance(fsm, new Item("a5"), keyed("batch:x").queue(PARKED).build()),
                new NewInstance(fsm, new Item("a6"), InsertOptions.builder().queue(PARKED).build()));

        List<Inserted> answers = engine.insertAll(batch);

        assertThat(answers).hasSize(batch.size());
        assertThat(answers).extracting(Inserted::duplicate)
                .containsExactly(false, false, true, true, false, true, false);
        assertThat(answers.get(2).id()).isEqualTo(answers.get(0).id());
        assertThat(answers.get(5).id()).isEqualTo(answers.get(0).id());
        assertThat(answers.get(3).id()).isEqualTo(pre.id());
        for (int i : new int[]{0, 1, 4, 6}) {
            assertThat(db.string("SELECT state->>'name' FROM gen_durable WHERE id = ?", answers.get(i).id()))
                    .as("the row answered for input %d", i).isEqualTo("a" + i);
        }
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE state->>'name' LIKE 'a_'")).isEqualTo(4);
    }

    @Test
    void concurrent_batches_of_the_same_keys_in_different_orders_answer_one_id_per_key_with_exactly_one_winner()
            throws Exception {
        int threads = 8;
        List<String> keys = new ArrayList<>();
        for (int k = 0; k < 25; k++) {
            keys.add("race:" + k);
        }
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<List<Inserted>>> futures = new ArrayList<>();
        List<List<String>> orders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            List<String> order = new ArrayList<>(keys);
            Collections.shuffle(order, new Random(t));
            orders.add(order);
            List<NewInstance> batch = order.stream().map(k -> NewInstance.of(Holder.class, new Item(k),
                    keyed(k).queue(PARKED).build())).toList();
            futures.add(pool.submit(() -> {
                go.await();
                return engine.insertAll(batch);
            }));
        }
        go.countDown();
        Map<String, List<Inserted>> byKey = new HashMap<>();
        try {
            for (int t = 0; t < threads; t++) {
                List<Inserted> answers = futures.get(t).get(60, TimeUnit.SECONDS);
                for (int i = 0; i < answers.size(); i++) {
                    byKey.computeIfAbsent(orders.get(t).get(i), k -> new ArrayList<>()).add(answers.get(i));
                }
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE correlation_key LIKE 'race:%'")).isEqualTo(keys.size());
        for (String k : keys) {
            List<Inserted> answers = byKey.get(k);
            assertThat(answers).as(k).hasSize(threads);
            assertThat(answers.stream().filter(a -> !a.duplicate())).as(k).hasSize(1);
            long holder = db.count("SELECT id FROM gen_durable WHERE correlation_key = ?", k);
            assertThat(answers).as(k).extracting(Inserted::id).containsOnly(holder);
        }
    }

    @Test
    void insert_all_of_ten_thousand_rows_is_one_statement_and_maps_each_answer_to_its_input() {
        String fsm = FsmNames.nameOf(Holder.class);
        InsertOptions bulk = InsertOptions.builder().queue("bulk").build();
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            batch.add(new NewInstance(fsm, new Item("bulk-" + i), bulk));
        }
        AtomicReference<List<Inserted>> answers = new AtomicReference<>();

        List<String> statements = recorder.record(() -> answers.set(engine.insertAll(batch)));

        // the insert itself, after turning the server's JIT off for this large batch (InsertJitTest)
        assertThat(statements).hasSize(2);
        assertThat(statements.get(0)).startsWith("SELECT set_config('jit', 'off', true)");
        assertThat(statements.get(1)).startsWith("WITH input");
        assertThat(recorder.record(() -> assertThat(engine.insertAll(List.of())).isEmpty()))
                .as("an empty batch runs no statement").isEmpty();
        assertThat(answers.get()).hasSize(10_000).noneMatch(Inserted::duplicate);
        assertThat(db.count("SELECT count(*) FROM gen_durable WHERE queue = 'bulk'")).isEqualTo(10_000);
        Map<Long, String> names = db.pairs("SELECT id, state->>'name' FROM gen_durable WHERE queue = 'bulk'");
        for (int i = 0; i < batch.size(); i++) {
            assertThat(names.get(answers.get().get(i).id())).as("input %d", i).isEqualTo("bulk-" + i);
        }
    }

    @Test
    void state_is_stored_as_a_json_object_never_as_a_json_string() {
        Inserted one = engine.insert(Holder.class, new Item("obj-1"), InsertOptions.builder().queue(PARKED).build());
        List<Inserted> many = engine.insertAll(List.of(
                NewInstance.of(Holder.class, new Item("obj-2"), InsertOptions.builder().queue(PARKED).build()),
                NewInstance.of(Holder.class, new Item("obj-3"), InsertOptions.builder().queue(PARKED).build())));

        for (Inserted r : List.of(one, many.get(0), many.get(1))) {
            assertThat(db.string("SELECT jsonb_typeof(state) FROM gen_durable WHERE id = ?", r.id())).isEqualTo("object");
        }
        assertThat(db.string("SELECT state->>'name' FROM gen_durable WHERE id = ?", many.get(1).id())).isEqualTo("obj-3");
        assertThat(engine.find(one.id()).orElseThrow().state().as(Item.class)).isEqualTo(new Item("obj-1"));
    }

    @Test
    void find_by_correlation_key_returns_the_live_holder_and_nothing_once_it_is_done() {
        Inserted parked = engine.insert(Holder.class, new Item("f1"), keyed("find:1").queue(PARKED).build());
        Inserted running = engine.insert(Holder.class, new Item("f2"), keyed("find:2").build());

        InstanceSnapshot found = engine.find("find:1").orElseThrow();
        assertThat(found.id()).isEqualTo(parked.id());
        assertThat(found.correlationKey()).isEqualTo("find:1");
        assertThat(found.status()).isEqualTo(Status.RUNNABLE);
        assertThat(engine.find("find:nobody")).isEmpty();

        t.drain("default");
        t.assertDone(running.id());
        assertThat(engine.find("find:2")).isEmpty();
    }

    /**
     * {@code bad} is refused by {@code insert} (the message holding every one of {@code aloneParts})
     * and by {@code insertAll} after a good instance (holding {@code inBatch}), and nothing of
     * either is written.
     */
    private void rejectedAloneAndInABatch(NewInstance bad, List<String> aloneParts, String inBatch) {
        long before = rows();
        NewInstance good = NewInstance.of(Holder.class, new Item("ok"), InsertOptions.builder().queue(PARKED).build());
        assertThatThrownBy(() -> engine.insert(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContainingAll(aloneParts.toArray(String[]::new));
        assertThatThrownBy(() -> engine.insertAll(List.of(good, bad))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(inBatch);
        assertThat(rows()).isEqualTo(before);
    }

    @Test
    void an_unknown_fsm_name_is_rejected_with_a_clear_message_and_writes_nothing() {
        NewInstance unknown = new NewInstance("no.such.Fsm", new Item("x"), null);

        rejectedAloneAndInABatch(unknown, List.of("'no.such.Fsm'", "not registered"), "'no.such.Fsm'");
    }

    @Test
    void a_state_that_cannot_be_serialized_is_rejected_with_a_clear_message_and_writes_nothing() {
        String fsm = FsmNames.nameOf(Holder.class);
        NewInstance bad = new NewInstance(fsm, new Unwritable(), InsertOptions.builder().queue(PARKED).build());

        rejectedAloneAndInABatch(bad, List.of("cannot be serialized as JSON", fsm), "cannot be serialized as JSON");
    }

    @Test
    void a_state_postgres_cannot_store_is_rejected_with_a_clear_message_and_writes_nothing() {
        long before = rows();
        NewInstance good = NewInstance.of(Holder.class, new Item("ok"), InsertOptions.builder().queue(PARKED).build());
        NewInstance nul = NewInstance.of(Holder.class, new Item("a\u0000b"), InsertOptions.builder().queue(PARKED).build());

        assertThatThrownBy(() -> engine.insertAll(List.of(good, nul)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be serialized as JSON").hasMessageContaining("\\u0000");
        assertThat(rows()).isEqualTo(before);

        Item literal = new Item("C:\\\\u0000 is a path, not a NUL");
        Inserted stored = engine.insert(Holder.class, literal, InsertOptions.builder().queue(PARKED).build());
        assertThat(engine.find(stored.id()).orElseThrow().state().as(Item.class)).isEqualTo(literal);
    }

    @Test
    void a_negative_priority_a_blank_queue_and_an_empty_correlation_scope_are_rejected_before_anything_is_written() {
        long before = rows();

        assertThatThrownBy(() -> engine.insert(Holder.class, new Item("neg"), InsertOptions.builder().priority(-1).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("priority must be 0 or more");
        assertThatThrownBy(() -> engine.insert(Holder.class, new Item("blank"), InsertOptions.builder().queue("  ").build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue must not be null or blank");
        assertThatThrownBy(() -> engine.insert(Holder.class, new Item("scope"),
                keyed("scope:1").correlationScope().build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("correlationScope must name at least one status");
        assertThatThrownBy(() -> engine.insertAll(null)).isInstanceOf(NullPointerException.class);
        assertThat(rows()).isEqualTo(before);
    }
}
