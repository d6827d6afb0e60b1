package io.gendurable.sample.it;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.Outcome;
import io.gendurable.SignalTarget;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.Set;

/**
 * A test FSM added to the sample's WAR: a waiter parks for signal {@code go}; a sender's step,
 * still running when the application is undeployed, signals the waiter through the injected
 * {@code GenDurable} {@value #SEND_AFTER_MILLIS} ms after it started, while the drain waits for it.
 */
@DurableFsm(name = "it-drain-signals")
@ApplicationScoped
public class DrainSignals implements Fsm<DrainSignals.Role> {
    static final long SEND_AFTER_MILLIS = 2_500;

    /** @param waiter the waiter to signal, or null for the waiter itself */
    public record Role(Long waiter) {
    }

    @Inject
    GenDurable durable;

    @Override
    public Outcome step(String step, Role r, StepContext ctx) throws InterruptedException {
        if (r.waiter() == null) {
            return step.equals("start") ? Outcome.await(Set.of("go"), "woken", r) : Outcome.done();
        }
        Thread.sleep(SEND_AFTER_MILLIS);  // elapsed time is the subject: the undeploy's drain has begun by then
        return Outcome.done(String.valueOf(durable.signal(SignalTarget.id(r.waiter()), "go", null)));
    }
}
