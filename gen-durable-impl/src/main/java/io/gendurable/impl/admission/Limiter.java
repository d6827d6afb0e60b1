package io.gendurable.impl.admission;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Admission for configured limits (gates and rate limits), out of band of the claim. The
 * scheduler claims first, then asks {@link #admit}; it releases the denied rows and keeps the
 * admitted ones. Freed slots go back through {@link #credit}; the PostgreSQL backend's counters
 * are credited by the flush itself, in the transaction that frees the slot, and a stale outcome
 * credits nothing (the reconciler heals such leaks). The K = 1
 * exclusion of unconfigured keys is not the limiter's business: the claim and its unique index
 * settle it. An unlimited pick never calls the limiter.
 */
public interface Limiter {

    /**
     * A claimed row that needs admission.
     *
     * @param id      the row
     * @param token   the fencing token of the claim being admitted
     * @param gateKey its concurrency key when that key's name is a configured gate, else null
     * @param rateKey its step's rate-limit key ({@code name} or {@code name:partition}), else null
     * @param weight  the tokens it takes from the rate limit
     */
    record Candidate(long id, long token, String gateKey, String rateKey, int weight) {
    }

    /**
     * A gate slot held by an executing row.
     *
     * @param key   the concurrency key
     * @param shard the counter shard it was drawn from
     */
    record Slot(String key, int shard) {
    }

    /**
     * The answer for one batch.
     *
     * @param admitted id → the slot drawn (null for a row that is only rate-limited)
     * @param denied   the rows to release back to runnable
     */
    record Admission(Map<Long, Slot> admitted, Set<Long> denied) {
    }

    /**
     * Admits candidates in the order given (urgency order: priority, then eligible_at), debiting
     * only rows that pass every limit they name, and stamps the drawn shard on admitted gated rows.
     *
     * @param candidates rows in urgency order
     * @param queue      the queue, for metrics
     * @return admitted and denied rows
     */
    Admission admit(List<Candidate> candidates, String queue);

    /** @param slots slots freed by committed outcomes */
    void credit(List<Slot> slots);

    /** @param slots slots still held by running steps (a lease-based backend extends them) */
    void renew(List<Slot> slots);
}
