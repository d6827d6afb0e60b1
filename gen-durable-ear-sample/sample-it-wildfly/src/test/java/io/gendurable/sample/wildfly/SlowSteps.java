package io.gendurable.sample.wildfly;

import io.gendurable.DurableFsm;
import io.gendurable.Fsm;
import io.gendurable.Outcome;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A test FSM added to the sample's WAR: {@code left} steps of {@value #STEP_MILLIS} ms each, so
 * that steps are in flight when the application is undeployed.
 */
@DurableFsm(name = "it-slow")
@ApplicationScoped
public class SlowSteps implements Fsm<SlowSteps.Countdown> {
    static final long STEP_MILLIS = 300;

    /** @param left steps still to run */
    public record Countdown(int left) {
    }

    private static final System.Logger LOG = System.getLogger(SlowSteps.class.getName());

    @Override
    public Outcome step(String step, Countdown c, StepContext ctx) throws InterruptedException {
        LOG.log(System.Logger.Level.INFO, "it-slow: " + c.left() + " left");  // WildFlyIT reads its MDC in server.log
        Thread.sleep(STEP_MILLIS);
        return c.left() <= 1 ? Outcome.done() : Outcome.next("start", new Countdown(c.left() - 1));
    }
}
