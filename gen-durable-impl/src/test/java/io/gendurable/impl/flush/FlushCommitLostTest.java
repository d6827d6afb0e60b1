package io.gendurable.impl.flush;

import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A flush whose COMMIT reached the server but whose answer was lost (the chaos suite's
 * {@code pg_terminate_backend} mid-flush found it): the outcome is applied, the row is runnable,
 * and the same worker may claim it again at the same attempt before the flusher would retry.
 */
class FlushCommitLostTest {
    public record S(int n) {
    }

    public static class TwoSteps implements Fsm<S> {
        final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        @Override
        public Outcome step(String step, S s, StepContext ctx) throws InterruptedException {
            runs.computeIfAbsent(step, k -> new AtomicInteger()).incrementAndGet();
            if (step.equals("start")) {
                return Outcome.next("second", s);
            }
            // Elapsed time is the point: a flusher that retried the lost commit did so 50 ms (x attempt)
            // later; this claim must still be running then. The fixed flusher sends no retry at all,
            // so there is no event to await, only that window to outlast.
            Thread.sleep(300);  // still running when a retry of the first flush would come
            return Outcome.done();
        }
    }

    EngineHarness h;

    @BeforeEach
    void up() {
        h = new EngineHarness("commitlost");
    }

    @AfterEach
    void down() {
        h.close();
    }

    @Test
    void a_flush_whose_commit_answer_is_lost_is_not_written_again_over_the_next_claim_of_its_row() {
        AtomicBoolean armed = new AtomicBoolean(true);
        AtomicInteger flushUpdates = new AtomicInteger();
        h.wrapDataSource(ds -> commitAnswerLost(ds, armed, flushUpdates));
        TwoSteps fsm = new TwoSteps();
        // a 1 ms poll: the worker re-claims the row at once, well within the flusher's retry delay
        Engine e = h.start("n1", c -> c.poll(Duration.ofMillis(1), Duration.ofMillis(1)), fsm);
        long id = e.insert(TwoSteps.class, new S(1)).id();

        await().atMost(Duration.ofSeconds(20))
                .until(() -> e.find(id).map(x -> x.status() == Status.DONE).orElse(false));

        assertThat(armed).as("the lost commit answer was injected").isFalse();
        assertThat(fsm.runs.get("start")).hasValue(1);
        // a second write of start's outcome would have returned second's running claim to runnable
        assertThat(fsm.runs.get("second")).hasValue(1);
        assertThat(flushUpdates).hasValue(2);
    }

    /** Connections whose first commit after a flush statement commits, then reports a lost connection. */
    private static DataSource commitAnswerLost(DataSource ds, AtomicBoolean armed, AtomicInteger flushUpdates) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, m, args) -> {
                    Object r = invoke(m, ds, args);
                    return r instanceof Connection c && m.getName().equals("getConnection") ? connection(c, armed, flushUpdates) : r;
                });
    }

    private static Connection connection(Connection c, AtomicBoolean armed, AtomicInteger flushUpdates) {
        AtomicBoolean flushed = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, m, args) -> {
                    if (m.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql
                            && sql.contains("AS t(id, worker, claim_token")) {
                        flushUpdates.incrementAndGet();
                        flushed.set(true);
                    }
                    if (m.getName().equals("commit")) {
                        Object r = invoke(m, c, args);
                        if (flushed.getAndSet(false) && armed.getAndSet(false)) {
                            throw new SQLException("simulated: the connection died after COMMIT", "08006");
                        }
                        return r;
                    }
                    if (m.getName().equals("rollback")) {
                        flushed.set(false);
                    }
                    return invoke(m, c, args);
                });
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
