package io.gendurable.testing;

import io.gendurable.Child;
import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.Job;
import io.gendurable.NewInstance;
import io.gendurable.Outcome;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The acceptance: a user's test written with the extension and drain() runs a
 * multi-step FSM with a signal, a timeout and a fan-out to done, in a single thread, in under a
 * second after start-up (the engine is built and migrated before the test method starts).
 */
@GenDurableTest(fsms = {AcceptanceTest.Fulfilment.class, AcceptanceTest.Pack.class},
        config = "gendurable.queues=default:10,packing:5")
class AcceptanceTest {
    /** Every thread a step of either FSM ran on. */
    static final Set<Thread> STEP_THREADS = ConcurrentHashMap.newKeySet();

    public record Order(String id, int parcels, boolean paid, boolean carrierAnswered) {
    }

    public record Parcel(String order, int n) {
    }

    @DurableFsm(name = "fulfilment")
    public static class Fulfilment implements Fsm<Order> {
        @Override
        public Outcome step(String step, Order o, StepContext ctx) {
            STEP_THREADS.add(Thread.currentThread());
            return switch (step) {
                case "start" -> Outcome.next("await_payment", o);
                case "await_payment" -> Outcome.await(Set.of("paid"), "book_carrier", o);
                case "book_carrier" -> Outcome.await(Set.of("carrier_answer"), "pack",
                        new Order(o.id(), o.parcels(), true, false), Duration.ofHours(4));
                case "pack" -> Outcome.scheduleChildren(IntStream.rangeClosed(1, o.parcels())
                                .mapToObj(n -> NewInstance.of(Pack.class, new Parcel(o.id(), n))).toList(), "finish",
                        new Order(o.id(), o.parcels(), o.paid(), !ctx.awaited().isEmpty()));
                case "finish" -> Outcome.done(Map.of("order", o.id(), "paid", o.paid(),
                        "carrierAnswered", o.carrierAnswered(),
                        "labels", ctx.children().stream().sorted(Comparator.comparingLong(Child::id))
                                .map(c -> c.result().as(String.class)).toList()));
                default -> Outcome.stop("unknown step " + step);
            };
        }
    }

    @DurableFsm(name = "pack", queue = "packing")
    public static class Pack implements Job<Parcel> {
        @Override
        public Object perform(Parcel p, StepContext ctx) {
            STEP_THREADS.add(Thread.currentThread());
            return "label-" + p.order() + "-" + p.n();
        }
    }

    @Test
    void a_signal_a_timeout_and_a_fan_out_run_to_done_in_the_test_thread_in_under_a_second(GenDurable durable,
                                                                                         DurableTesting t) {
        long t0 = System.nanoTime();
        long id = durable.insert(Fulfilment.class, new Order("o-1", 3, false, false)).id();

        t.drain();
        t.assertAwaiting(id, "paid");
        assertThat(durable.signal(SignalTarget.id(id), "paid", null)).isEqualTo(SignalResult.DELIVERED);

        t.drain();
        t.assertAwaiting(id, "carrier_answer");
        assertThat(t.fireTimeouts()).isEqualTo(1);   // the carrier never answers: the 4 h timeout fires

        DrainResult last = t.drain();
        t.assertDone(id, Map.of("order", "o-1", "paid", true, "carrierAnswered", false,
                "labels", List.of("label-o-1-1", "label-o-1-2", "label-o-1-3")));
        long elapsedMillis = (System.nanoTime() - t0) / 1_000_000;

        assertThat(last.stepNamesOf(id)).containsExactly("pack", "finish");
        assertThat(last.countOf("pack")).isEqualTo(3);
        assertThat(STEP_THREADS).containsExactly(Thread.currentThread());
        assertThat(elapsedMillis).as("elapsed after start-up, ms").isLessThan(1000);
        System.out.println("acceptance: the whole flow took " + elapsedMillis + " ms after start-up");
    }
}
