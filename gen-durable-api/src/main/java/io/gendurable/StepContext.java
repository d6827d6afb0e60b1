package io.gendurable;

import java.time.Instant;
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
}
