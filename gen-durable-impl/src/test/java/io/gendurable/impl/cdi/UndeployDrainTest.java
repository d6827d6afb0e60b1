package io.gendurable.impl.cdi;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Outcome;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import io.gendurable.testing.SharedTestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A step the undeploy drain waits for may call the injected {@code GenDurable} (issue 44, item 1).
 * The step signals another instance 700 ms after the container began to shut down (drain timeout
 * 2 s). The bean used to mark itself stopped before the drain and hold its monitor through it: the
 * step's call blocked on that monitor for the whole drain (an interrupt does not release a monitor
 * wait), then failed with {@code EngineStoppedException}; its outcome reached a stopped flusher,
 * the row stayed executing until its lease expired and the step ran again, and the undeploy took
 * the drain timeout and more. Now the engine is served while it drains: the signal is delivered,
 * the step's outcome commits, and the shutdown takes about the step's time.
 */
class UndeployDrainTest extends CdiTest {
    public record Note(String text) {
    }

    static final CountDownLatch SENDER_RUNNING = new CountDownLatch(1);
    static final AtomicReference<Object> SENT = new AtomicReference<>();
    static volatile long waiterId;

    /** Parks until signalled. */
    @ApplicationScoped
    @DurableFsm(name = "drain-waiter")
    public static class Waiter implements Fsm<Note> {
        @Override
        public Outcome step(String step, Note s, StepContext ctx) {
            return step.equals("start") ? Outcome.await(Set.of("go"), "woken", s) : Outcome.done();
        }
    }

    /** Signals the waiter through the injected engine, 700 ms into its step. */
    @ApplicationScoped
    @DurableFsm(name = "drain-sender")
    public static class Sender implements Fsm<Note> {
        @Inject
        GenDurable durable;

        @Override
        public Outcome step(String step, Note s, StepContext ctx) throws InterruptedException {
            SENDER_RUNNING.countDown();
            Thread.sleep(700);  // elapsed time is the subject: the call comes while the drain waits for this step
            try {
                SENT.set(durable.signal(SignalTarget.id(waiterId), "go", null));
            } catch (RuntimeException e) {
                SENT.set(e);
            }
            return Outcome.done();
        }
    }

    @Test
    void a_step_the_drain_waits_for_is_served_by_the_injected_engine() throws Exception {
        String schema = SharedTestDatabase.newSchema("cdi_drain");
        CdiTestSupport.jdbcProperties(schema);
        WeldContainer c = boot(Waiter.class, Sender.class);
        long senderId;
        try {
            GenDurable durable = c.select(GenDurable.class).get();
            waiterId = durable.insert(Waiter.class, new Note("w")).id();
            org.awaitility.Awaitility.await().alias("the waiter parked").atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> "awaiting_signal".equals(status(schema, waiterId)));
            senderId = durable.insert(Sender.class, new Note("s"), InsertOptions.defaults()).id();
            assertThat(SENDER_RUNNING.await(10, TimeUnit.SECONDS)).as("the sender's step runs").isTrue();
        } catch (RuntimeException | Error e) {
            c.close();
            throw e;
        }
        long t0 = System.nanoTime();
        c.close();  // undeploy: the drain waits for the sender's step
        double seconds = (System.nanoTime() - t0) / 1e9;

        assertThat(SENT.get()).as("what the step's signal answered").isEqualTo(SignalResult.DELIVERED);
        assertThat(status(schema, senderId)).as("the sender's outcome committed in the drain").isEqualTo("done");
        assertThat(seconds).as("seconds the undeploy took (step 0.7 s, drain timeout 2 s)").isLessThan(1.9);
    }

    private static String status(String schema, long id) {
        long code = SharedTestDatabase.queryLong(db, "SELECT CASE status::text WHEN 'done' THEN 1 WHEN 'executing' THEN 2 "
                + "WHEN 'awaiting_signal' THEN 3 ELSE 4 END FROM " + schema + ".gen_durable WHERE id = " + id);
        return new String[] {null, "done", "executing", "awaiting_signal", "other"}[(int) code];
    }
}
