package io.gendurable.impl.cdi;

import io.gendurable.GenDurable;
import io.gendurable.Status;
import io.gendurable.events.QueueSaturation;
import io.gendurable.events.RowsClaimed;
import io.gendurable.impl.cdi.TestFsms.Count;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.runtime.EventKind;
import io.gendurable.testing.SharedTestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine's events for CDI observers (Weld SE, real database): synchronous and asynchronous
 * observers get them, off the engine's threads; only observed types are built; an observer that
 * blocks or throws does not stop the engine claiming and finishing rows.
 */
class EngineEventsCdiTest extends CdiTest {

    /** A synchronous observer of claims and an asynchronous one of saturation. */
    @ApplicationScoped
    public static class Observing {
        static final List<RowsClaimed> CLAIMED = new CopyOnWriteArrayList<>();
        static final List<String> THREADS = new CopyOnWriteArrayList<>();
        static final List<QueueSaturation> SATURATION = new CopyOnWriteArrayList<>();

        void claimed(@Observes RowsClaimed e) {
            CLAIMED.add(e);
            THREADS.add(Thread.currentThread().getName());
        }

        void saturation(@ObservesAsync QueueSaturation e) {
            SATURATION.add(e);
        }
    }

    /** A synchronous observer of claims that blocks until the test lets it go. */
    @ApplicationScoped
    public static class Blocking {
        static final CountDownLatch ENTERED = new CountDownLatch(1);
        static final CountDownLatch RELEASE = new CountDownLatch(1);

        void claimed(@Observes RowsClaimed e) throws InterruptedException {
            ENTERED.countDown();
            RELEASE.await(60, TimeUnit.SECONDS);
        }
    }

    /** A synchronous observer that always throws, and an asynchronous one of the same type. */
    @ApplicationScoped
    public static class Throwing {
        static final List<RowsClaimed> ASYNC = new CopyOnWriteArrayList<>();

        void claimed(@Observes RowsClaimed e) {
            throw new IllegalStateException("observer bug");
        }

        void claimedAsync(@ObservesAsync RowsClaimed e) {
            ASYNC.add(e);
        }
    }

    private static Engine engine(WeldContainer c) {
        return ((DurableBean) c.select(GenDurable.class).get()).engine();
    }

    private static List<Long> insert(GenDurable durable, int n) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(durable.insert(Tally.class, new Count(0)).id());
        }
        return ids;
    }

    private static void awaitDone(GenDurable durable, List<Long> ids) {
        await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream()
                .allMatch(id -> durable.find(id).orElseThrow().status() == Status.DONE));
    }

    @Test
    void sync_and_async_observers_get_their_types_on_the_event_thread_and_unobserved_types_are_never_built() {
        String schema = SharedTestDatabase.newSchema("cdi_engine_events");
        CdiTestSupport.jdbcProperties(schema);
        try (WeldContainer c = boot(Tally.class, Increments.class, Observing.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            Engine engine = engine(c);
            var bus = EngineInternals.eventBus(engine);
            assertThat(java.util.Arrays.stream(EventKind.values()).filter(bus::on))
                    .as("the types some observer wants (step events keep their own CDI delivery)")
                    .containsExactlyInAnyOrder(EventKind.ROWS_CLAIMED, EventKind.QUEUE_SATURATION);

            awaitDone(durable, insert(durable, 3));
            await().atMost(Duration.ofSeconds(10)).until(() -> !Observing.CLAIMED.isEmpty() && !Observing.SATURATION.isEmpty());
            assertThat(Observing.CLAIMED).allSatisfy(e -> {
                assertThat(e.queue()).isEqualTo("default");
                assertThat(e.node()).isEqualTo("cdi-" + schema);
            });
            assertThat(Observing.THREADS).as("where the synchronous observer ran").containsOnly("gendurable-events");
            assertThat(Observing.SATURATION).allSatisfy(e -> assertThat(e.concurrency()).isEqualTo(2));
        }
    }

    @Test
    void a_blocked_synchronous_observer_does_not_stop_the_engine_claiming_and_finishing_rows() throws Exception {
        String schema = SharedTestDatabase.newSchema("cdi_events_blocked");
        CdiTestSupport.jdbcProperties(schema);
        try (WeldContainer c = boot(Tally.class, Increments.class, Blocking.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            Engine engine = engine(c);
            assertThat(Blocking.ENTERED.await(10, TimeUnit.SECONDS)).as("the observer is called, and blocks").isTrue();
            long picks = engine.metrics().picks.sum();

            awaitDone(durable, insert(durable, 20));
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.metrics().picks.sum() > picks + 5);
            assertThat(Blocking.RELEASE.getCount()).as("still blocked meanwhile").isEqualTo(1);
        } finally {
            Blocking.RELEASE.countDown();
        }
    }

    @Test
    void a_throwing_synchronous_observer_is_counted_and_the_engine_and_the_asynchronous_observers_go_on() {
        String schema = SharedTestDatabase.newSchema("cdi_events_throwing");
        CdiTestSupport.jdbcProperties(schema);
        try (WeldContainer c = boot(Tally.class, Increments.class, Throwing.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            Engine engine = engine(c);
            awaitDone(durable, insert(durable, 5));
            await().atMost(Duration.ofSeconds(10)).until(() -> engine.metrics().eventsFailed.sum() > 0
                    && !Throwing.ASYNC.isEmpty());
            assertThat(engine.metrics().loopErrors.sum()).isZero();
        }
    }
}
