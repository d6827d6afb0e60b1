package io.gendurable.impl.flush;

import io.gendurable.Status;
import io.gendurable.TransitionOptions.KeyChange;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.insert.InsertSql;

import java.time.Instant;
import java.util.List;

/**
 * What the flush writes for one claimed row: one record per kind of outcome, each carrying only
 * what that kind needs. The flush's update ({@link FlushSql}) reads every kind through the same
 * accessors, the <em>row image</em> below, one per column of its {@code unnest}; the defaults
 * leave a column as it is, so each record states only what it changes. The riders read the
 * record itself: consume ({@link #consume()}, {@link Finish} clears the inbox), the fan-out
 * ({@link FanOut#children()}), the join ({@link #joins()}), the gate credit ({@link #slot()})
 * and the park recheck ({@link Park#presented()}).
 *
 * What each kind does to the row's status, {@code attempt} and {@code awaits} is one table,
 * {@link Kind}.
 */
public sealed interface Transition {

    /**
     * The claim an outcome belongs to. The row commits only while it still carries {@code token},
     * the claim's fencing token (every claim and inline continue stamps a new one, every release,
     * reap and flush clears it), so an outcome of any earlier claim is stale.
     *
     * @param id     the row
     * @param worker the worker that holds the claim
     * @param token  the claim's fencing token
     */
    record Claim(long id, String worker, long token) {
        /**
         * Of the token alone: a token is one claim's, drawn from a sequence, so a batch's claims fall
         * in distinct buckets (sets of claims are read per outcome; a sum with the row id, which grows
         * with the token, put a batch in a few buckets).
         */
        @Override
        public int hashCode() {
            return Long.hashCode(token);
        }

        @Override
        public boolean equals(Object o) {
            return this == o || o instanceof Claim c && c.id == id && c.token == token && c.worker.equals(worker);
        }
    }

    /** @return the claim this outcome belongs to */
    Claim claim();

    /** @return which kind of transition this is: its status, attempt and awaits operations, its metric label */
    Kind kind();

    /** @return the status the row takes */
    default Status status() {
        return kind().status();
    }

    /** @return what happens to {@code attempt} */
    default AttemptOp attemptOp() {
        return kind().attemptOp();
    }

    /** @return what happens to {@code awaits} and {@code await_deadline} */
    default AwaitsOp awaitsOp() {
        return kind().awaitsOp();
    }

    /** @return the gate slot the row holds, returned to its counter once this commits; or null */
    Limiter.Slot slot();

    /**
     * @return the error text for {@code last_error}, or null: then a retry or a stop keeps the last
     * one and any other outcome clears it
     */
    String error();

    /** @return the row */
    default long id() {
        return claim().id();
    }

    /** @return the claim's fencing token (the update's guard) */
    default long claimToken() {
        return claim().token();
    }

    // ---- the row image: what the update writes per column; the defaults leave the column as it is

    /** @return the new step, or null to keep it */
    default String step() {
        return null;
    }

    /** @return whether {@link #stateJson()} replaces the state (a kind that {@linkplain Kind#movesStep() moves to a step}) */
    default boolean setsState() {
        return kind().movesStep();
    }

    /** @return the new state's JSON (with {@link #setsState()}) */
    default String stateJson() {
        return null;
    }

    /** @return the new eligible instant, or null to keep it */
    default Instant eligibleAt() {
        return null;
    }

    /** @return whether {@link #resultJson()} is written ({@link Kind#DONE}) */
    default boolean setsResult() {
        return kind() == Kind.DONE;
    }

    /** @return the result's JSON (with {@link #setsResult()}) */
    default String resultJson() {
        return null;
    }

    /** @return the names to await (with {@link AwaitsOp#SET}) */
    default List<String> awaits() {
        return List.of();
    }

    /** @return the await deadline (with {@link AwaitsOp#SET}), or null for none */
    default Instant awaitDeadline() {
        return null;
    }

    /**
     * @return whether {@link #rateLimit()} and {@link #weight()} replace the row's (a kind that
     * {@linkplain Kind#movesStep() moves to a step}: a park or a fan-out clears them)
     */
    default boolean setsRate() {
        return kind().movesStep();
    }

    /** @return the next step's rate-limit key, or null (with {@link #setsRate()}) */
    default String rateLimit() {
        return null;
    }

    /** @return the next step's weight (with {@link #setsRate()}) */
    default int weight() {
        return 1;
    }

    /** @return what happens to the concurrency key */
    default KeyChange keyChange() {
        return KeyChange.KEEP;
    }

    /** @return the new key with {@link KeyChange#SWITCH} */
    default String newKey() {
        return null;
    }

    /**
     * @return whether the row stays executing under the same worker, with a new fencing token
     * and its lease extended to {@link #leaseUntil()} (an inline {@link Continue})
     */
    default boolean keepsClaim() {
        return kind() == Kind.CONTINUE;
    }

    /** @return the extended lease of an inline continue */
    default Instant leaseUntil() {
        return null;
    }

    // ---- riders

    /** @return signal ids deleted from the inbox once committed (progress consumes what it saw) */
    default List<Long> consume() {
        return List.of();
    }

    /** @return the parent this outcome decrements once committed (a terminal child), or null */
    default Long joins() {
        return null;
    }

    /**
     * What a {@code next} leads to: the step and what it runs with.
     *
     * @param name      the next step
     * @param stateJson its state's JSON
     * @param rateLimit its rate-limit key, or null
     * @param weight    its weight
     * @param keyChange what happens to the concurrency key
     * @param newKey    the new key with {@link KeyChange#SWITCH}, else null
     */
    record NextStep(String name, String stateJson, String rateLimit, int weight, KeyChange keyChange, String newKey) {
    }

    /** Progress to another step ({@link Next}, {@link Continue}): the step, its state, rate and key. */
    sealed interface Advance extends Transition permits Next, Continue {
        /** @return the next step */
        NextStep next();

        @Override
        default String step() {
            return next().name();
        }

        @Override
        default String stateJson() {
            return next().stateJson();
        }

        @Override
        default String rateLimit() {
            return next().rateLimit();
        }

        @Override
        default int weight() {
            return next().weight();
        }

        @Override
        default KeyChange keyChange() {
            return next().keyChange();
        }

        @Override
        default String newKey() {
            return next().newKey();
        }
    }

    /**
     * A {@code next} that requeues: the row goes back to runnable at its next step.
     *
     * @param eligibleAt when the next step may run
     * @param consume    the awaited signal ids the step saw
     */
    record Next(Claim claim, NextStep next, Instant eligibleAt, List<Long> consume, Limiter.Slot slot, String error)
            implements Advance {
        public Next {
            consume = List.copyOf(consume);
        }

        @Override
        public Kind kind() {
            return Kind.NEXT;
        }
    }

    /**
     * An inline {@code next} (run-ahead): the row stays executing under the same worker with a new
     * fencing token, its lease extended, and the next step runs in the same task.
     *
     * @param leaseUntil the extended lease
     * @param slot       the slot to give back, or null when the key is kept (the slot goes on with it)
     */
    record Continue(Claim claim, NextStep next, Instant eligibleAt, Instant leaseUntil, List<Long> consume,
                    Limiter.Slot slot, String error) implements Advance {
        public Continue {
            consume = List.copyOf(consume);
        }

        @Override
        public Kind kind() {
            return Kind.CONTINUE;
        }
    }

    /**
     * An inline continue whose next step was denied admission goes back to runnable, as a normal
     * {@code next} would have left it, giving back any slot it still holds.
     */
    record Requeue(Claim claim, Instant eligibleAt, Limiter.Slot slot) implements Transition {
        @Override
        public Kind kind() {
            return Kind.REQUEUE;
        }

        @Override
        public String error() {
            return null;
        }
    }

    /**
     * The same step again, one attempt later; it keeps the awaited signals it was woken with.
     *
     * @param stateJson the new state's JSON, or null to keep the state
     */
    record Retry(Claim claim, String stateJson, Instant eligibleAt, Limiter.Slot slot, String error)
            implements Transition {
        @Override
        public Kind kind() {
            return Kind.RETRY;
        }

        @Override
        public boolean setsState() {
            return stateJson != null;
        }
    }

    /**
     * A park awaiting signals; its rate limit is cleared.
     *
     * @param awaits    the names to await
     * @param presented the awaited signal ids the step was woken with: the park's recheck ignores them
     */
    record Park(Claim claim, String step, String stateJson, List<String> awaits, Instant awaitDeadline,
                List<Long> presented, Limiter.Slot slot, String error) implements Transition {
        public Park {
            awaits = List.copyOf(awaits);
            presented = List.copyOf(presented);
        }

        @Override
        public Kind kind() {
            return Kind.PARK;
        }
    }

    /**
     * A fan-out: the children are inserted once committed, and the row parks for the join with
     * the count that landed; its rate limit is cleared.
     *
     * @param consume  the awaited signal ids the step saw
     * @param children the children to insert
     */
    record FanOut(Claim claim, String step, String stateJson, List<Long> consume, List<InsertSql.Row> children,
                  Limiter.Slot slot, String error) implements Transition {
        public FanOut {
            consume = List.copyOf(consume);
            children = List.copyOf(children);
        }

        @Override
        public Kind kind() {
            return Kind.FAN_OUT;
        }
    }

    /**
     * The end: {@code done} with a result, or {@code failed}. The whole inbox goes once committed,
     * and a child decrements its parent.
     *
     * @param status     {@link Status#DONE} or {@link Status#FAILED}
     * @param resultJson the result's JSON (done)
     * @param parentId   the parent to decrement, or null
     */
    record Finish(Claim claim, Status status, String resultJson, String error, Long parentId, Limiter.Slot slot)
            implements Transition {
        public Finish {
            if (!status.isTerminal()) {
                throw new IllegalArgumentException("a finish is done or failed, not " + status);
            }
        }

        @Override
        public Kind kind() {
            return status == Status.DONE ? Kind.DONE : Kind.STOP;
        }

        @Override
        public Long joins() {
            return parentId;
        }
    }

    /** What each kind of transition does to the row's status, {@code attempt} and {@code awaits}. */
    enum Kind {
        /** {@link Next}: on to the next step, requeued */
        NEXT(Status.RUNNABLE, AttemptOp.RESET, AwaitsOp.CLEAR, true, "next"),
        /** {@link Continue}: on to the next step in the same task, the claim kept */
        CONTINUE(Status.EXECUTING, AttemptOp.RESET, AwaitsOp.CLEAR, true, "next_inline"),
        /** {@link Requeue}: back to the queue unchanged */
        REQUEUE(Status.RUNNABLE, AttemptOp.KEEP, AwaitsOp.KEEP, false, "next"),
        /** {@link Retry}: the same step, one attempt later, with the same awaited signals */
        RETRY(Status.RUNNABLE, AttemptOp.INCREMENT, AwaitsOp.KEEP, false, "retry"),
        /** {@link Park}: parked at its next step until a signal */
        PARK(Status.AWAITING_SIGNAL, AttemptOp.RESET, AwaitsOp.SET, true, "await"),
        /** {@link FanOut}: parked at its next step until its children end */
        FAN_OUT(Status.AWAITING_CHILDREN, AttemptOp.RESET, AwaitsOp.CLEAR, true, "schedule_children"),
        /** {@link Finish} done: the result written */
        DONE(Status.DONE, AttemptOp.KEEP, AwaitsOp.CLEAR, false, "done"),
        /** {@link Finish} failed */
        STOP(Status.FAILED, AttemptOp.KEEP, AwaitsOp.CLEAR, false, "stop");

        private final Status status;
        private final AttemptOp attemptOp;
        private final AwaitsOp awaitsOp;
        private final boolean movesStep;
        private final String label;

        Kind(Status status, AttemptOp attemptOp, AwaitsOp awaitsOp, boolean movesStep, String label) {
            this.status = status;
            this.attemptOp = attemptOp;
            this.awaitsOp = awaitsOp;
            this.movesStep = movesStep;
            this.label = label;
        }

        /** @return the status the row takes */
        public Status status() {
            return status;
        }

        /** @return what happens to {@code attempt} */
        public AttemptOp attemptOp() {
            return attemptOp;
        }

        /** @return what happens to {@code awaits} and {@code await_deadline} */
        public AwaitsOp awaitsOp() {
            return awaitsOp;
        }

        /**
         * @return whether the row moves to a step of the outcome's choosing: step, state, rate limit
         * and weight are written (a park's and a fan-out's rate limit and weight are cleared)
         */
        public boolean movesStep() {
            return movesStep;
        }

        /** @return the outcome's name in metrics and events */
        public String label() {
            return label;
        }
    }

    /** How a transition changes {@code attempt}. */
    enum AttemptOp {
        /** leave it (terminal outcomes, a requeue) */
        KEEP,
        /** add one (retry) */
        INCREMENT,
        /** back to 1 (progress to another step, or a park) */
        RESET
    }

    /** How a transition changes {@code awaits} and {@code await_deadline}. */
    enum AwaitsOp {
        /** leave them (retry: the woken step runs again with the same awaited signals; a requeue) */
        KEEP,
        /** clear them (progress, terminal) */
        CLEAR,
        /** set them (a park) */
        SET
    }
}
