package io.gendurable.impl.step;

import io.gendurable.Outcome;
import io.gendurable.TransitionOptions.KeyChange;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.flush.Flusher;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.trace.Tracing;

import java.time.InstantSource;
import java.util.List;

/**
 * Inline execution (run-ahead): a {@code next} of an inline FSM commits its next state with the
 * row kept {@code executing} under the same worker, then its next step runs in the same task,
 * skipping the requeue and the re-claim. Durability is unchanged: the state is committed before
 * the step runs; a crash re-runs it through the reaper. Admission happens AFTER that guarded
 * commit (an orphaned task fails the guard and never admits): a rate token or a slot of a new
 * configured key is taken through the limiter, and a denial requeues the row through the normal
 * flush, where the claimer admits it. A switch to an unconfigured key is never inlined (the K = 1
 * index would see two executing rows); the claimer serializes it instead.
 */
public final class InlineContinuation {
    /** Chained steps before the row goes back through the queue, so one FSM cannot hold a slot forever. */
    static final int MAX_CHAIN = 100;

    private final EngineContext ctx;
    private final LimitsConfig limits;
    private final Limiter limiter;
    private final InboxSql inboxSql;
    private final OutcomeEncoder encoder;
    private final boolean traced;

    /**
     * @param ctx     the engine's context
     * @param limiter admits the next step when it names a gate or a rate limit
     * @param encoder encodes the next step's outcome
     */
    public InlineContinuation(EngineContext ctx, Limiter limiter, OutcomeEncoder encoder) {
        this.ctx = ctx;
        this.limits = ctx.config().limits();
        this.limiter = limiter;
        this.inboxSql = ctx.statements().of(InboxSql.class, InboxSql::new);
        this.encoder = encoder;
        this.traced = ctx.tracing() != Tracing.NONE;
    }

    /** @return whether this {@code next} may continue inline */
    boolean wanted(FsmDefinition def, Outcome outcome) {
        if (!(outcome instanceof Outcome.Next n)) {
            return false;
        }
        boolean inline = n.options().inline() != null ? n.options().inline() : def.inlineExecution();
        return inline && !(n.options().keyChange() == KeyChange.SWITCH && !isGate(n.options().concurrencyKey()));
    }

    /**
     * Builds the next step's claim from the committed continue, and admits it when it needs a
     * rate token or a new gate slot.
     *
     * @param token the fencing token the committed continue stamped: the next step's claim
     * @return the next step to run, or null when admission denied it (it was requeued)
     */
    Claimed next(Claimed previous, Transition.Continue committed, boolean hasSignals, long token, String worker,
                Flusher flusher) {
        ClaimedRow r = previous.row();
        Transition.NextStep step = committed.next();
        KeyChange change = step.keyChange();
        String key = switch (change) {
            case KEEP -> r.concurrencyKey();
            case RELEASE -> null;
            case SWITCH -> step.newKey();
        };
        boolean gated = change == KeyChange.KEEP ? r.gated() : change == KeyChange.SWITCH && isGate(key);
        ClaimedRow row = r.continuedAt(step, key, gated, hasSignals, token, ctx.clock().instant(),
                committed.leaseUntil());
        List<InboxSql.SignalRow> inbox = hasSignals
                ? ctx.db().inTransaction(c -> inboxSql.load(c, List.of(r.id()), traced)).getOrDefault(r.id(), List.of())
                : List.of();
        Claimed next = new Claimed(row, inbox, previous.children(), change == KeyChange.KEEP ? previous.slot() : null);
        boolean newGate = change == KeyChange.SWITCH && gated;
        if (step.rateLimit() == null && !newGate) {
            return next;
        }
        Limiter.Admission a = limiter.admit(List.of(new Limiter.Candidate(r.id(), token, newGate ? key : null,
                step.rateLimit(), step.weight(), r.fsm(), step.name())), r.queue());
        if (a.denied().contains(r.id())) {
            flusher.submit(encoder.requeue(next, worker, ctx.clock().instant())).join();
            return null;
        }
        Limiter.Slot slot = a.admitted().get(r.id());
        return slot == null ? next : next.withSlot(slot);
    }

    private boolean isGate(String key) {
        return limits.gateFor(key) != null;
    }
}
