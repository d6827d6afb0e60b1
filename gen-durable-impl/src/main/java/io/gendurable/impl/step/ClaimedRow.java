package io.gendurable.impl.step;

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
 * for this claim must present.
 */
public record ClaimedRow(long id, String fsm, int fsmVersion, String step, String stateJson, int attempt,
                         String queue, int priority, Instant eligibleAt, Instant insertedAt,
                         String correlationKey, String concurrencyKey, List<String> awaits, boolean hasSignals,
                         Long parentId, boolean hasChildren, String rateLimit, int weight, boolean gated,
                         String lastError, long claimToken) {
}
