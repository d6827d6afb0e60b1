package io.gendurable.impl.step;

import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.TransitionOptions.KeyChange;
import io.gendurable.TransitionOptions;
import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.flush.Transition;
import io.gendurable.impl.insert.InsertSql;
import io.gendurable.impl.insert.InstanceRows;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.step.InboxSql.SignalRow;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns an {@link Outcome} into the row transition and riders the flush writes. Serialization
 * fails here, before any write. Consumption rules: progress ({@code next}) consumes exactly the
 * awaited signals the step saw; {@code retry} and {@code await} consume nothing (a park's recheck
 * ignores the awaited signals the step was woken with); terminal outcomes clear the inbox.
 */
public final class OutcomeEncoder {
    private final Json json;
    private final InstanceRows instanceRows;

    public OutcomeEncoder(Json json, InstanceRows instanceRows) {
        this.json = json;
        this.instanceRows = instanceRows;
    }

    /**
     * @param claimed the row as claimed (its claim token for the guard, the signals it saw)
     * @param error  the error text when onError produced this outcome, else null
     */
    Transition encode(Claimed claimed, String worker, Outcome outcome, Instant now, String error) {
        return encode(claimed, worker, outcome, now, error, null);
    }

    /**
     * @param inlineLease the lease of an inline continue (a {@code next} that keeps the row
     *                    executing for the next step in the same task), or null to requeue
     */
    Transition encode(Claimed claimed, String worker, Outcome outcome, Instant now, String error, Instant inlineLease) {
        Transition.Claim claim = new Transition.Claim(claimed.row().id(), worker, claimed.row().claimToken());
        Limiter.Slot slot = claimed.slot();
        error = error == null ? null : storable(error);
        if (outcome instanceof Outcome.Next n) {
            checkStep(n.step());
            TransitionOptions o = n.options();
            instanceRows.checkWeight(o.rateLimit(), o.weight());
            Transition.NextStep next = new Transition.NextStep(n.step(), write("the state of the next step", n.state()),
                    o.rateLimit(), o.weight(), o.keyChange(), o.concurrencyKey());
            List<Long> consume = ids(claimed.awaited());
            if (inlineLease == null) {
                return new Transition.Next(claim, next, now, consume, slot, error);
            }
            // An inline continue that keeps its key keeps its slot: nothing to credit.
            return new Transition.Continue(claim, next, now, inlineLease, consume,
                    o.keyChange() == KeyChange.KEEP ? null : slot, error);
        }
        if (outcome instanceof Outcome.Retry r) {
            checkStorable("retry delay", now, r.delay());
            return new Transition.Retry(claim, write("the state of the retry", r.state()), now.plus(r.delay()), slot, error);
        }
        if (outcome instanceof Outcome.Await a) {
            if (a.timeout() != null) {
                checkStorable("await timeout", now, a.timeout());
            }
            checkStep(a.nextStep());
            // Presented = the awaited signals this step was woken with: a re-await with them parks
            // cleanly (the accumulate pattern), while a signal that arrived before a first await
            // (never presented as awaited) still wakes the park's recheck at once.
            return new Transition.Park(claim, a.nextStep(), write("the state of the await", a.state()),
                    a.signals().stream().sorted().toList(), a.timeout() == null ? null : now.plus(a.timeout()),
                    ids(claimed.awaited()), slot, error);
        }
        if (outcome instanceof Outcome.ScheduleChildren f) {
            checkStep(f.nextStep());
            List<InsertSql.Row> children = new ArrayList<>(f.children().size());
            for (int i = 0; i < f.children().size(); i++) {
                try {
                    children.add(instanceRows.toRow(f.children().get(i), now, claim.id()));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("children[" + i + "]: " + e.getMessage(), e);
                }
            }
            return new Transition.FanOut(claim, f.nextStep(), write("the state of the parent", f.state()),
                    ids(claimed.awaited()), children, slot, error);
        }
        Long parent = claimed.row().parentId();
        if (outcome instanceof Outcome.Done d) {
            return new Transition.Finish(claim, Status.DONE, write("the result", d.result()), error, parent, slot);
        }
        Outcome.Stop s = (Outcome.Stop) outcome;
        return new Transition.Finish(claim, Status.FAILED, null, storable(s.error()), parent, slot);
    }

    /**
     * The requeue of an inline continue whose next step was denied admission: back to runnable,
     * as a normal {@code next} would have left it, giving back any slot it still holds.
     */
    Transition requeue(Claimed continuation, String worker, Instant now) {
        ClaimedRow row = continuation.row();
        return new Transition.Requeue(new Transition.Claim(row.id(), worker, row.claimToken()), now, continuation.slot());
    }

    private static List<Long> ids(List<SignalRow> signals) {
        return signals.stream().map(SignalRow::id).toList();
    }

    private static void checkStep(String step) {
        if (step.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("the step name contains a NUL character, which PostgreSQL text cannot store");
        }
    }

    /** Serializes a value and holds it to the size limit, before anything is written. */
    private String write(String what, Object value) {
        String written = json.write(value);
        instanceRows.valueSize().check(what, written);
        return written;
    }

    /** PostgreSQL timestamps end in year 294276; anything past year 9999 is a mistake, refused before the write. */
    private static void checkStorable(String what, Instant now, Duration d) {
        if (d.compareTo(Duration.ofDays(365L * 1000)) > 0) {
            throw new IllegalArgumentException("the " + what + " " + d + " is longer than 1,000 years");
        }
    }

    /** PostgreSQL text cannot hold NUL: a stop must always be storable, so its text is mended, not refused. */
    private static String storable(String text) {
        return text.indexOf('\0') < 0 ? text : text.replace('\0', '\uFFFD');
    }

    static String kind(Outcome outcome) {
        if (outcome instanceof Outcome.Next) {
            return "next";
        }
        if (outcome instanceof Outcome.Retry) {
            return "retry";
        }
        if (outcome instanceof Outcome.Await) {
            return "await";
        }
        if (outcome instanceof Outcome.ScheduleChildren) {
            return "schedule_children";
        }
        return outcome instanceof Outcome.Done ? "done" : "stop";
    }
}
