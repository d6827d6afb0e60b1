package io.gendurable.impl.step;

import io.gendurable.impl.flush.Transition;

import java.time.Instant;
import java.util.List;

/**
 * A row the claim flipped to {@code executing} for a worker: everything a step needs.
 * {@code awaits} are the names it awaited when woken (empty otherwise); {@code hasSignals}
 * tells whether its inbox must be loaded; {@code parentId} is its parent when it is a child;
 * {@code hasChildren} tells whether its children must be loaded; {@code rateLimit} and
 * {@code weight} describe the current step's rate limit; {@code gated} says its concurrency key
 * is a configured gate (admitted by the limiter after the claim); {@code lastError} tells, among
 * other things, whether its last attempt ended with an expired lease; {@code claimToken} is
 * the claim's fencing token (a fresh value per claim and per inline continue), which every write
 * for this claim must present; {@code traceparent} and {@code tracestate} are the W3C trace context
 * stored at insert (null when no span was current then; docs/tracing.md); {@code leaseUntil} is the
 * lease the claim wrote (the engine clock's time base), which the step's start checks;
 * {@code stepTimeoutMillis} is the step timeout the instance was inserted with (0: none), or null.
 */
public record ClaimedRow(long id, String fsm, int fsmVersion, String step, String stateJson, int attempt,
                         String queue, int priority, Instant eligibleAt, Instant insertedAt,
                         String correlationKey, String concurrencyKey, List<String> awaits, boolean hasSignals,
                         Long parentId, boolean hasChildren, String rateLimit, int weight, boolean gated,
                         String lastError, long claimToken, String traceparent, String tracestate,
                         Instant leaseUntil, Long stepTimeoutMillis) {

    /** A row inserted without a step timeout of its own; the fields as the canonical constructor's. */
    public ClaimedRow(long id, String fsm, int fsmVersion, String step, String stateJson, int attempt,
                      String queue, int priority, Instant eligibleAt, Instant insertedAt,
                      String correlationKey, String concurrencyKey, List<String> awaits, boolean hasSignals,
                      Long parentId, boolean hasChildren, String rateLimit, int weight, boolean gated,
                      String lastError, long claimToken, String traceparent, String tracestate, Instant leaseUntil) {
        this(id, fsm, fsmVersion, step, stateJson, attempt, queue, priority, eligibleAt, insertedAt, correlationKey,
                concurrencyKey, awaits, hasSignals, parentId, hasChildren, rateLimit, weight, gated, lastError,
                claimToken, traceparent, tracestate, leaseUntil, null);
    }

    /**
     * A row claimed by its own insert (start at insert): such a row has no correlation or concurrency
     * key, rate limit, awaited names, inbox, children or last error.
     */
    public static ClaimedRow startedAtInsert(long id, String fsm, int fsmVersion, String step, String stateJson,
                                             int attempt, String queue, int priority, Instant eligibleAt,
                                             Instant insertedAt, Long parentId, int weight, long claimToken,
                                             String traceparent, String tracestate, Instant leaseUntil,
                                             Long stepTimeoutMillis) {
        return new ClaimedRow(id, fsm, fsmVersion, step, stateJson, attempt, queue, priority, eligibleAt, insertedAt,
                null, null, List.of(), false, parentId, false, null, weight, false, null, claimToken, traceparent,
                tracestate, leaseUntil, stepTimeoutMillis);
    }

    /**
     * This row as the claim of its next step after a committed inline continue: the step, state,
     * rate limit and weight of {@code next}, attempt 1, no awaited names, no last error.
     *
     * @param key        the concurrency key it now runs under (kept, released or switched)
     * @param gated      whether that key is a configured gate
     * @param hasSignals whether its inbox must be loaded
     * @param token      the fencing token the continue stamped
     * @param now        its new eligible instant
     * @param leaseUntil the lease the continue wrote
     */
    ClaimedRow continuedAt(Transition.NextStep next, String key, boolean gated, boolean hasSignals, long token,
                           Instant now, Instant leaseUntil) {
        return new ClaimedRow(id, fsm, fsmVersion, next.name(), next.stateJson(), 1, queue, priority, now, insertedAt,
                correlationKey, key, List.of(), hasSignals, parentId, hasChildren, next.rateLimit(), next.weight(),
                gated, null, token, traceparent, tracestate, leaseUntil, stepTimeoutMillis);
    }
}
