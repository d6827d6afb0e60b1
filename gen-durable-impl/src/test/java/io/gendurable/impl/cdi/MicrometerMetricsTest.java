package io.gendurable.impl.cdi;

import io.gendurable.GenDurable;
import io.gendurable.impl.cdi.TestFsms.Count;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.testing.SharedTestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Without MicroProfile Metrics (not on this class path) but with a Micrometer {@link MeterRegistry}
 * bean, as in WildFly's micrometer subsystem, the engine publishes its meters there under the
 * names and tags of docs/metrics.md, and removes them when the application stops.
 */
class MicrometerMetricsTest extends CdiTest {
    static final SimpleMeterRegistry REGISTRY = new SimpleMeterRegistry();

    /** The application's registry, as WildFly's micrometer subsystem would produce it. */
    @ApplicationScoped
    public static class Registry {
        @Produces
        MeterRegistry registry() {
            return REGISTRY;
        }
    }

    @Test
    void steps_picks_flushes_and_gauges_reach_the_meter_registry_and_leave_it_at_stop() {
        String schema = SharedTestDatabase.newSchema("cdi_micrometer");
        CdiTestSupport.jdbcProperties(schema);
        try (WeldContainer c = boot(Tally.class, Increments.class, Registry.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            long id = durable.insert(Tally.class, new Count(0)).id();
            String fsm = durable.find(id).orElseThrow().fsm();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                Timer done = REGISTRY.find("gendurable.step.duration").tags("fsm", fsm, "outcome", "done").timer();
                return done != null && done.count() >= 1;
            });
            assertThat(REGISTRY.get("gendurable.pick.count").tag("queue", "default").counter().count()).isPositive();
            assertThat(REGISTRY.get("gendurable.picked.rows").tag("queue", "default").counter().count()).isPositive();
            assertThat(REGISTRY.get("gendurable.flush.batch.size").summary().count()).isPositive();
            assertThat(REGISTRY.get("gendurable.flush.duration").timer().count()).isPositive();
            assertThat(REGISTRY.get("gendurable.outcome.stale").gauge().value()).isZero();
            assertThat(REGISTRY.get("gendurable.scheduler.in_flight").tag("queue", "default").gauge()).isNotNull();
            assertThat(REGISTRY.get("gendurable.scheduler.prefetch").tag("queue", "default").gauge().value())
                    .as("the auto prefetch starts at the queue's concurrency").isGreaterThanOrEqualTo(1);
            await().atMost(Duration.ofSeconds(20)).until(() -> REGISTRY.find("gendurable.queue.instances")
                    .tags("queue", "default", "status", "runnable").gauge() != null);
            assertThat(REGISTRY.get("gendurable.queue.oldest_runnable_age").tag("queue", "default").gauge().getId()
                    .getBaseUnit()).isEqualTo("seconds");
        }
        assertThat(REGISTRY.getMeters()).as("the engine's meters are removed when it stops")
                .noneMatch(m -> m.getId().getName().startsWith("gendurable."));
    }
}
