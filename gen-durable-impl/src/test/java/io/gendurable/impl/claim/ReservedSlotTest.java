package io.gendurable.impl.claim;

import io.gendurable.Fsm;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.db.UnknownCommitException;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.JdbcSpy;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Slots reserved for rows claimed by their insert or wake-up (issue 35, defect 6). Each engine
 * here polls every 30 s, so a row that waits for a poll is seen not to start within a few seconds.
 * <ul>
 * <li>A reservation counted as a running step, so a poke that came while one was held was
 *     dropped; and a reservation given back unclaimed asked for no fill: rows poked meanwhile
 *     waited for the poll.</li>
 * <li>An insert whose commit answer was lost left the rows it claimed untracked: executing under
 *     this worker until their lease lapsed, an attempt burnt. They are now given back by their
 *     tokens, as the wake-up path does.</li>
 * <li>A step executor that failed with anything but {@code RejectedExecutionException} leaked the
 *     slot and stranded the row (heartbeated, never run).</li>
 * </ul>
 */
@EngineTest
class ReservedSlotTest {
    public record Item(int n) {
    }

    public static class Counted implements Fsm<Item> {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public Outcome step(String step, Item s, StepContext ctx) {
            runs.incrementAndGet();
            return Outcome.done();
        }
    }

    private static final Duration POLL = Duration.ofSeconds(30);

    private Engine start(EngineHarness h, Counted fsm) {
        return start(h, fsm, UnaryOperator.identity());
    }

    private Engine start(EngineHarness h, Counted fsm, UnaryOperator<Engine.Builder> engine) {
        Engine e = h.build("n1", c -> c.queues(Map.of("default", 2)).poll(POLL, POLL), InstantSource.system(), engine, fsm);
        e.start();
        return e;
    }

    /** @return a reserved slot, once the start's fill is not claiming (a reservation then gives its slot back) */
    private static ReservedSlot reserve(Scheduler s) {
        ReservedSlot[] r = new ReservedSlot[1];
        await().alias("a slot reserved").atMost(Duration.ofSeconds(5)).until(() -> (r[0] = s.reserve()) != null);
        return r[0];
    }

    /** A row of another node, inserted runnable with no poke of this node. */
    private static long runnableRow(EngineHarness h) {
        return h.queryLong("INSERT INTO gen_durable (fsm, step, state) VALUES ('" + Counted.class.getName()
                + "', 'start', '{\"n\": 1}') RETURNING id");
    }

    private static void awaitDone(Engine e, long id, String what) {
        await().alias(what).atMost(Duration.ofSeconds(5))
                .until(() -> e.find(id).map(InstanceSnapshot::status).orElseThrow() == Status.DONE);
    }

    @Test
    void a_poke_while_a_reservation_is_held_is_not_dropped(EngineHarness h) {
        Counted fsm = new Counted();
        Engine e = start(h, fsm);
        Scheduler s = EngineInternals.schedulers(e).get(0);
        ReservedSlot r = reserve(s);
        assertThat(r).as("a free slot reserved").isNotNull();
        try {
            long id = runnableRow(h);
            s.poke();
            awaitDone(e, id, "the poked row ran while a reservation was held (else: the 30 s poll)");
        } finally {
            r.release();
        }
    }

    @Test
    void a_reservation_given_back_unclaimed_asks_for_a_fill(EngineHarness h) {
        Counted fsm = new Counted();
        Engine e = start(h, fsm);
        Scheduler s = EngineInternals.schedulers(e).get(0);
        ReservedSlot r = reserve(s);
        assertThat(r).isNotNull();
        long id = runnableRow(h);
        r.release();
        awaitDone(e, id, "the row ran after the reservation was given back (else: the 30 s poll)");
    }

    @Test
    void rows_an_insert_claimed_whose_commit_answer_was_lost_are_given_back_by_their_tokens(EngineHarness h) {
        AtomicBoolean armed = new AtomicBoolean(true);
        h.wrapDataSource(ds -> JdbcSpy.connections(ds, c -> {
            AtomicBoolean inserted = new AtomicBoolean();
            return JdbcSpy.around(c, (method, args, call) -> {
                String sql = JdbcSpy.preparedSql(method, args);
                if (sql != null && sql.startsWith("WITH input AS")) {
                    inserted.set(true);
                }
                Object r = call.proceed();
                if (method.getName().equals("commit") && inserted.getAndSet(false) && armed.getAndSet(false)) {
                    throw new SQLException("simulated: the connection died after COMMIT", "08006");
                }
                return r;
            });
        }));
        Counted fsm = new Counted();
        Engine e = start(h, fsm);
        assertThatThrownBy(() -> e.insert(Counted.class, new Item(1))).isInstanceOf(UnknownCommitException.class);
        long id = h.queryLong("SELECT max(id) FROM gen_durable");
        awaitDone(e, id, "the row its insert claimed ran (else: after its 60 s lease)");
        assertThat(fsm.runs).hasValue(1);
        assertThat(h.queryLong("SELECT attempt FROM gen_durable WHERE id = " + id)).as("no attempt burnt").isEqualTo(1);
    }

    @Test
    void a_step_executor_failing_otherwise_than_by_refusal_leaks_no_slot_and_strands_no_row(EngineHarness h) {
        AtomicBoolean failing = new AtomicBoolean(true);
        ExecutorService pool = h.owned(Executors.newCachedThreadPool());
        ExecutorService steps = new AbstractExecutorService() {
            @Override
            public void execute(Runnable command) {
                if (failing.getAndSet(false)) {
                    throw new IllegalStateException("simulated: the container's executor failed");
                }
                pool.execute(command);
            }

            @Override
            public void shutdown() {
                pool.shutdown();
            }

            @Override
            public java.util.List<Runnable> shutdownNow() {
                return pool.shutdownNow();
            }

            @Override
            public boolean isShutdown() {
                return pool.isShutdown();
            }

            @Override
            public boolean isTerminated() {
                return pool.isTerminated();
            }

            @Override
            public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
                return pool.awaitTermination(timeout, unit);
            }
        };
        Counted fsm = new Counted();
        Engine e = start(h, fsm, b -> b.steps(steps));
        long id = e.insert(Counted.class, new Item(1)).id();
        assertThat(failing).as("the executor failed the insert's start").isFalse();
        awaitDone(e, id, "the row ran after the failed hand-over (else: never, heartbeated)");
        Scheduler s = EngineInternals.schedulers(e).get(0);
        await().alias("no slot leaked").atMost(Duration.ofSeconds(5)).until(() -> s.inFlight() == 0);
    }
}
