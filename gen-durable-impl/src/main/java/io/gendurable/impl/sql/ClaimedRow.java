package io.gendurable.impl.sql;

import java.time.Instant;

/** A row the claim flipped to {@code executing} for a worker: everything a step needs. */
public record ClaimedRow(long id, String fsm, int fsmVersion, String step, String stateJson, int attempt,
                         String queue, int priority, Instant eligibleAt, Instant insertedAt,
                         String correlationKey, String concurrencyKey) {
}
