package io.gendurable.impl.control;

import io.gendurable.Fsm;
import io.gendurable.InsertOptions;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimiterBackend;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import io.gendurable.impl.support.TestRedis;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A cancel of a running row holds its key and its slot until the step's code returns (issue 35,
 * defect 4). Row A of a key runs (K = 1, or a gate of 1 on either limiter backend); B of the same
 * key waits. An operator cancels A. The cancel used to make A {@code cancelled} in its own
 * transaction, credit A's slot and unblock the key while A's code still ran: B started beside it
 * (two running at once under a limit of 1). Now the cancel is a request: A's thread is interrupted,
 * A keeps the key and the slot until its code returns, its outcome is discarded and A ends
 * cancelled in that outcome's flush; only then does B start.
 */
@EngineTest
class CancelRunningTest {
    public record Task(String label) {
    }

    /** Holds step "start" until released (or interrupted); counts the most running at once. */
    public static class Held implements Fsm<Task> {
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger maxRunning = new AtomicInteger();
        final Map<String, CountDownLatch> entered = new ConcurrentHashMap<>();
        final Map<String, CountDownLatch> released = new ConcurrentHashMap<>();
        final Map<String, Boolean> interrupted = new ConcurrentHashMap<>();

        CountDownLatch latch(Map<String, CountDownLatch> m, String label) {
            return m.computeIfAbsent(label, k -> new CountDownLatch(1));
        }

        @Override
        public Outcome step(String step, Task t, StepContext ctx) {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            latch(entered, t.label()).countDown();
            try {
                try {
                    latch(released, t.label()).await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    interrupted.put(t.label(), true);
                    // a step that cleans up after an interrupt still holds its key until it returns
                    latch(released, t.label() + "-cleanup").await(30, TimeUnit.SECONDS);
                }
                return Outcome.done(Map.of("by", t.label()));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                running.decrementAndGet();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"k1", "gate-postgres", "gate-redis"})
    void a_cancelled_running_row_keeps_its_key_until_its_code_returns(String kind, EngineHarness h) throws Exception {
        Held fsm = new Held();
        UnaryOperator<EngineConfig.Builder> config = c -> {
            EngineConfig.Builder b = c.queues(Map.of("default", 4)).prefetch(0);
            if (kind.startsWith("gate")) {
                b = b.limits(new LimitsConfig(Map.of(), Map.of("api", new LimitsConfig.Gate("api", 1, 1))));
            }
            if (kind.equals("gate-redis")) {
                b = b.limiter(LimiterBackend.REDIS).redisUrl(TestRedis.url());
            }
            return b;
        };
        Engine e = h.start("n1", config, fsm);
        String key = kind.equals("k1") ? "tenant:1" : "api:t";
        List<Long> ids = e.insertAll(List.of(
                new NewInstance(Held.class.getName(), new Task("A"), InsertOptions.builder().concurrencyKey(key).build()),
                new NewInstance(Held.class.getName(), new Task("B"), InsertOptions.builder().concurrencyKey(key).build())))
                .stream().map(io.gendurable.Inserted::id).toList();
        assertThat(fsm.latch(fsm.entered, "A").await(10, TimeUnit.SECONDS)).as("A runs").isTrue();

        var cancellation = e.operations().cancel(ids.get(0), "no longer wanted");
        assertThat(cancellation.pending()).isTrue();
        await().alias("A's thread interrupted").atMost(Duration.ofSeconds(5)).until(() -> fsm.interrupted.containsKey("A"));
        // A's code is still running (cleaning up): B must not start, whatever the claims do meanwhile
        EngineInternals.schedulers(e).forEach(s -> s.wake());
        assertThat(fsm.latch(fsm.entered, "B").await(1, TimeUnit.SECONDS)).as("B started while A's code ran").isFalse();
        assertThat(e.find(ids.get(0)).orElseThrow().status()).isEqualTo(Status.EXECUTING);

        fsm.latch(fsm.released, "A-cleanup").countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(ids.get(0)).orElseThrow().status() == Status.CANCELLED);
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable WHERE id = " + ids.get(0) + " AND result IS NULL"))
                .as("A's outcome was discarded").isEqualTo(1);
        assertThat(fsm.latch(fsm.entered, "B").await(10, TimeUnit.SECONDS)).as("B starts once A returned").isTrue();
        fsm.latch(fsm.released, "B").countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> e.find(ids.get(1)).orElseThrow().status() == Status.DONE);
        assertThat(fsm.maxRunning).as("most running at once under a limit of 1").hasValue(1);
    }

    /**
     * A cancel requested for a row whose lease lapses before its step returns (the node died or
     * hangs) is ended cancelled by the reaper, never returned to runnable to run again.
     */
    @Test
    void a_requested_cancel_whose_lease_lapses_is_ended_cancelled_by_the_reaper(EngineHarness h) throws Exception {
        Held fsm = new Held();
        Engine e = h.start("n1", c -> c.queues(Map.of("default", 2)), fsm);
        long id = e.insert(Held.class, new Task("A"), InsertOptions.builder().concurrencyKey("tenant:1").build()).id();
        assertThat(fsm.latch(fsm.entered, "A").await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(e.operations().cancel(id, "stuck").pending()).isTrue();
        h.exec("UPDATE gen_durable SET lease_expires_at = now() - interval '1 second' WHERE id = " + id);
        EngineInternals.reaper(e).runOnce();
        assertThat(e.find(id).orElseThrow().status()).isEqualTo(Status.CANCELLED);
        assertThat(e.find(id).orElseThrow().lastError()).isEqualTo("stuck");
        fsm.latch(fsm.released, "A-cleanup").countDown();
        fsm.latch(fsm.released, "A").countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> fsm.running.get() == 0);
        assertThat(e.find(id).orElseThrow().status()).as("the late outcome took no effect").isEqualTo(Status.CANCELLED);
    }
}
