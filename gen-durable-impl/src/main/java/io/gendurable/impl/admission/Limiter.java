package io.gendurable.impl.admission;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Admission for configured limits (gates and rate limits), out of band of the claim. The
 * scheduler claims first, then asks {@link #admit}; it releases the denied rows and keeps the
 * admitted ones. The PostgreSQL backend's counters are credited by the flush itself, in the
 * transaction that frees the slot ({@link Slot#inBand()}), and a stale outcome credits nothing (the
 * reconciler heals such leaks). A backend in another store (Redis) hands out slots with a holder:
 * those go back through {@link #credit} after the transaction that frees them commits, so a failure
 * between the two leaks a slot until its lease lapses and never frees one still held. The K = 1
 * exclusion of unconfigured keys is not the limiter's business: the claim and its unique index
 * settle it. An unlimited claim never calls the limiter.
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
     * @param fsm     its FSM name, for the events (null when unknown)
     * @param step    the step it is to run, for the events (null when unknown)
     */
    record Candidate(long id, long token, String gateKey, String rateKey, int weight, String fsm, String step) {
        /** A candidate without its FSM and step; the parameters as the canonical constructor's. */
        public Candidate(long id, long token, String gateKey, String rateKey, int weight) {
            this(id, token, gateKey, rateKey, weight, null, null);
        }
    }

    /**
     * A gate slot held by an executing row.
     *
     * @param key    the concurrency key
     * @param shard  the counter shard it was drawn from (stamped on the row; 0 for a backend without shards)
     * @param holder null for a PostgreSQL counter slot (credited in the transaction that frees it);
     *               else its holder's name in the backend's store, credited by {@link #credit} after that commit
     */
    record Slot(String key, int shard, String holder) {
        /** A PostgreSQL counter slot. @param key the concurrency key @param shard its counter shard */
        public Slot(String key, int shard) {
            this(key, shard, null);
        }

        /** @return whether the transaction that frees it credits it (else {@link #credit} does, after that commit) */
        public boolean inBand() {
            return holder == null;
        }
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

    /**
     * Returns slots that are not {@link Slot#inBand()}, after the transaction that freed them
     * committed. Best-effort: a slot not credited heals when its lease lapses.
     *
     * @param slots slots freed by committed outcomes, releases or cancels
     */
    void credit(List<Slot> slots);

    /**
     * Extends the leases of the slots the rows {@code held} hold (a lease-based backend), before
     * the heartbeat extends the rows' own leases; forgets this node's admissions in {@code queue}
     * that are no longer held.
     *
     * @param queue the heartbeating queue
     * @param held  the rows its scheduler still holds → the token of its claim on each (an inline
     *              continue's, which keeps the slot its chain was admitted with)
     * @return the rows whose slot could not be renewed: the heartbeat leaves their leases to lapse,
     *         so a row never outlives its slot
     */
    Set<Long> renew(String queue, Map<Long, Long> held);
}
