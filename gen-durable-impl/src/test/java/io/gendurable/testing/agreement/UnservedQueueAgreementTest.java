package io.gendurable.testing.agreement;

import io.gendurable.DurableFsm;
import io.gendurable.Job;
import io.gendurable.StepContext;
import io.gendurable.Status;
import io.gendurable.testing.DrainException;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.TestClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static io.gendurable.testing.agreement.Kits.config;
import static io.gendurable.testing.agreement.Kits.kit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An FSM whose default queue is missing from {@code gendurable.queues}: a node never runs it (and
 * says so at start-up and in its readiness data); the kit's drain fails naming the queue instead of
 * running it.
 */
class UnservedQueueAgreementTest {

    @DurableFsm(name = "agree-pay", queue = "payments")
    public static class Pay implements Job<String> {
        @Override
        public Object perform(String who, StepContext ctx) {
            return "paid " + who;
        }
    }

    @Test
    void an_fsm_whose_queue_is_not_configured_runs_neither_on_a_node_nor_under_the_kit() {
        Instant start = Kits.start();
        try (Production p = new Production("agree-queue", new TestClock(start), b -> b.queues(Map.of("default", 4)), new Pay());
             DurableTesting t = kit(new TestClock(start), config("gendurable.queues=default:10"), new Pay())) {
            long onNode = p.engine.insert(Pay.class, "ann").id();
            p.runUntil(start.plus(Duration.ofMinutes(5)), Duration.ofMinutes(1));
            assertThat(p.instance(onNode).status()).as("on a node").isEqualTo(Status.RUNNABLE);

            long underKit = t.durable().insert(Pay.class, "ann").id();
            assertThatThrownBy(t::drain).as("the kit's drain").isInstanceOf(DrainException.class)
                    .hasMessageContainingAll("'payments'", "agree-pay", "gendurable.queues");
            assertThat(t.instance(underKit).status()).as("under the kit").isEqualTo(Status.RUNNABLE);
        }
    }

    @Test
    void a_node_says_at_start_up_and_in_its_readiness_data_which_registered_fsms_default_to_a_queue_it_does_not_serve() {
        // the engine logs through System.Logger, whose default backend is java.util.logging
        java.util.List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
                    warnings.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Logger engineLog = java.util.logging.Logger.getLogger("io.gendurable.engine");
        engineLog.addHandler(handler);
        try (Production p = new Production("agree-queue-health", new TestClock(), b -> b.queues(Map.of("default", 4)),
                new Pay())) {
            assertThat(warnings).as("the start-up warnings").anySatisfy(w -> assertThat(w)
                    .contains("[agree-pay]", "'payments'", "gendurable.queues"));
            assertThat(p.readinessData()).as("the node's readiness data")
                    .hasEntrySatisfying("unserved queue payments", v -> assertThat(v).contains("agree-pay", "gendurable.queues"));
            assertThat(p.engine.health().readiness().up()).as("a signal, not a failure").isTrue();
        } finally {
            engineLog.removeHandler(handler);
        }
    }
}
