package io.gendurable;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** What a running step knows about its instance. Valid only during the step call. */
public interface StepContext {
    /** @return the instance id */
    long id();

    /** @return the FSM name stored in the row */
    String fsm();

    /** @return the FSM version stored in the row */
    int fsmVersion();

    /** @return the step being run */
    String step();

    /** @return the attempt of this step, 1 for the first run; retries and lease expiries add one */
    int attempt();

    /** @return the maximum attempts declared by {@link DurableFsm#maxAttempts()} */
    int maxAttempts();

    /** @return the queue the instance runs in */
    String queue();

    /** @return when the instance was inserted */
    Instant insertedAt();

    /** @return the business key that addresses and deduplicates the instance, if any */
    Optional<String> correlationKey();

    /** @return the concurrency key, if any */
    Optional<String> concurrencyKey();

    /**
     * @return the signals that woke this step: the inbox's signals whose names the instance
     * awaited (empty when no await preceded, and after an await timeout). Progress
     * ({@code next}) consumes exactly these; {@code retry} and {@code await} consume nothing;
     * {@code done} and {@code stop} clear the whole inbox.
     */
    List<Signal> awaited();

    /** @return every pending signal of this instance, as loaded when the step was picked */
    List<Signal> inbox();

    /**
     * @return the children this instance fanned out ({@link Outcome#scheduleChildren}), with their
     * status, result and error, as loaded when the step was picked; empty when it has none
     */
    List<Child> children();
}
