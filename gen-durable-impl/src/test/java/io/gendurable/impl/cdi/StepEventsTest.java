package io.gendurable.impl.cdi;

import io.gendurable.GenDurable;
import io.gendurable.events.StepCompleted;
import io.gendurable.events.StepFailed;
import io.gendurable.impl.cdi.TestFsms.Count;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.testing.SharedTestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class StepEventsTest extends CdiTest {

    /** An application bean observing the engine's events. */
    @ApplicationScoped
    public static class Listener {
        static final List<StepCompleted> COMPLETED = new CopyOnWriteArrayList<>();
        static final List<StepFailed> FAILED = new CopyOnWriteArrayList<>();

        void completed(@ObservesAsync StepCompleted e) {
            COMPLETED.add(e);
        }

        void failed(@ObservesAsync StepFailed e) {
            FAILED.add(e);
        }
    }

    @Test
    void each_committed_step_fires_an_asynchronous_step_completed_event_with_its_outcome() {
        String schema = SharedTestDatabase.newSchema("cdi_events");
        CdiTestSupport.jdbcProperties(schema);
        try (WeldContainer c = boot(Tally.class, Increments.class, Listener.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            long id = durable.insert(Tally.class, new Count(0)).id();
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    Listener.COMPLETED.stream().anyMatch(e -> e.id() == id && e.outcome().equals("done")));
            StepCompleted done = Listener.COMPLETED.stream().filter(e -> e.id() == id && e.outcome().equals("done"))
                    .findFirst().orElseThrow();
            assertThat(done.fsm()).isEqualTo(durable.find(id).orElseThrow().fsm());
            assertThat(done.queue()).isEqualTo("default");
            assertThat(done.duration().isNegative()).isFalse();
            assertThat(Listener.FAILED).noneMatch(e -> e.id() == id);
        }
    }
}
