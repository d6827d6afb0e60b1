package io.gendurable;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares an {@link Fsm} or {@link Job} bean's identity and defaults. Optional: an FSM bean
 * without it is registered under its class's fully qualified name, version 1.
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface DurableFsm {
    /** @return the name stored in each row; default: the class's fully qualified name */
    String name() default "";

    /** @return the version; rows remember it, so old and new versions can run side by side */
    int version() default 1;

    /** @return the step a new instance starts at */
    String initialStep() default "start";

    /** @return the queue new instances go to unless the insert says otherwise */
    String queue() default "default";

    /**
     * @return whether a {@code next} runs the following step in the same worker: its state is
     * committed first (the row stays executing, its lease extended), then the step runs without a
     * requeue and re-pick; {@link Outcome.Next#inline(boolean)} overrides it per move
     */
    boolean inlineExecution() default false;

    /** @return how many times a step may run before the default {@link Fsm#onError} stops the instance */
    int maxAttempts() default 20;

    /**
     * @return the longest a step of this FSM may run, as an ISO-8601 duration ({@code "PT30S"},
     * {@code "PT5M"}): past it the step's thread is interrupted and the step ends as a
     * {@link StepTimeoutException} handed to {@link Fsm#onError} (by default a retry with backoff until
     * {@link #maxAttempts()}). {@code "PT0S"}: no timeout, whatever {@code gendurable.step-timeout}
     * says. Empty (the default): {@code gendurable.step-timeout}. {@link Fsm#stepTimeout(String)} and
     * {@link InsertOptions#stepTimeout()} override it; a negative or unparsable value fails the deployment.
     */
    String stepTimeout() default "";

    /**
     * @return whether each committed step of its instances is recorded in the step history
     * ({@link InstanceDetails#history()}), whatever {@code gendurable.history.enabled} says
     */
    boolean history() default false;

    /**
     * @return the engine whose instances this FSM runs, as named in {@code gendurable.engines}
     * (see {@link DurableEngine}); default: the default engine. A name no engine has fails the deployment.
     */
    String engine() default DurableEngine.DEFAULT;
}
