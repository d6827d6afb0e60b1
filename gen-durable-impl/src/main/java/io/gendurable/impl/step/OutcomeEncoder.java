package io.gendurable.impl.step;

import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.impl.flush.OutcomeRow;
import io.gendurable.impl.flush.OutcomeRow.AttemptOp;
import io.gendurable.impl.flush.OutcomeRow.AwaitsOp;
import io.gendurable.impl.insert.InsertSql;
import io.gendurable.impl.insert.InstanceRows;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.step.InboxSql.SignalRow;

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
     * @param picked the row as picked (its claim token for the guard, the signals it saw)
     * @param error  the error text when onError produced this outcome, else null
     */
    OutcomeRow encode(Picked picked, String worker, Outcome outcome, Instant now, String error) {
        return encode(picked, worker, outcome, now, error, null);
    }

    /**
     * @param inlineLease the lease of an inline continue (a {@code next} that keeps the row
     *                    executing for the next step in the same task), or null to requeue
     */
    OutcomeRow encode(Picked picked, String worker, Outcome outcome, Instant now, String error, Instant inlineLease) {
        long id = picked.row().id();
        long token = picked.row().claimToken();
        error = error == null ? null : storable(error);
        if (outcome instanceof Outcome.Next n) {
            if (n.step().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("the step name contains a NUL character, which PostgreSQL text cannot store");
            }
            instanceRows.checkWeight(n.options().rateLimit(), n.options().weight());
            List<Long> consume = picked.awaited().stream().map(SignalRow::id).toList();
            boolean inline = inlineLease != null;
            // An inline continue that keeps its key keeps its slot: nothing to credit.
            boolean keepsSlot = inline && n.options().keyChange() == io.gendurable.TransitionOptions.KeyChange.KEEP;
            return new OutcomeRow(id, worker, token, (inline ? Status.EXECUTING : Status.RUNNABLE).dbName(), n.step(),
                    true, write("the state of the next step", n.state()), AttemptOp.RESET, now, false, null, error, AwaitsOp.CLEAR, null, null,
                    consume, false, null, null, null, true, n.options().rateLimit(), n.options().weight(),
                    n.options().keyChange().name(), n.options().concurrencyKey(),
                    keepsSlot ? null : slotKey(picked), keepsSlot ? null : slotShard(picked), inline, inlineLease);
        }
        if (outcome instanceof Outcome.Retry r) {
            checkStorable("retry delay", now, r.delay());
            return new OutcomeRow(id, worker, token, Status.RUNNABLE.dbName(), null, r.state() != null,
                    write("the state of the retry", r.state()), AttemptOp.INCREMENT, now.plus(r.delay()), false, null, error,
                    AwaitsOp.KEEP, null, null, null, false, null, null, null, false, null, 1, null, null,
                    slotKey(picked), slotShard(picked), false, null);
        }
        if (outcome instanceof Outcome.Await a) {
            if (a.timeout() != null) {
                checkStorable("await timeout", now, a.timeout());
            }
            if (a.nextStep().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("the step name contains a NUL character, which PostgreSQL text cannot store");
            }
            // Presented = the awaited signals this step was woken with: a re-await with them parks
            // cleanly (the accumulate pattern), while a signal that arrived before a first await
            // (never presented as awaited) still wakes the park's recheck at once.
            List<Long> presented = picked.awaited().stream().map(SignalRow::id).toList();
            return new OutcomeRow(id, worker, token, Status.AWAITING_SIGNAL.dbName(), a.nextStep(), true,
                    write("the state of the await", a.state()), AttemptOp.RESET, null, false, null, error, AwaitsOp.SET,
                    a.signals().stream().sorted().toList(), a.timeout() == null ? null : now.plus(a.timeout()),
                    null, false, presented, null, null, true, null, 1, null, null, slotKey(picked), slotShard(picked), false, null);
        }
        if (outcome instanceof Outcome.ScheduleChildren f) {
            if (f.nextStep().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("the step name contains a NUL character, which PostgreSQL text cannot store");
            }
            List<InsertSql.Row> children = new ArrayList<>(f.children().size());
            for (int i = 0; i < f.children().size(); i++) {
                try {
                    children.add(instanceRows.toRow(f.children().get(i), now, id));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("children[" + i + "]: " + e.getMessage(), e);
                }
            }
            List<Long> consume = picked.awaited().stream().map(SignalRow::id).toList();
            return new OutcomeRow(id, worker, token, Status.AWAITING_CHILDREN.dbName(), f.nextStep(), true,
                    write("the state of the parent", f.state()), AttemptOp.RESET, null, false, null, error, AwaitsOp.CLEAR, null, null,
                    consume, false, null, null, children, true, null, 1, null, null, slotKey(picked), slotShard(picked), false, null);
        }
        if (outcome instanceof Outcome.Done d) {
            return new OutcomeRow(id, worker, token, Status.DONE.dbName(), null, false, null, AttemptOp.KEEP, null,
                    true, write("the result", d.result()), error, AwaitsOp.CLEAR, null, null, null, true, null,
                    picked.row().parentId(), null, false, null, 1, null, null, slotKey(picked), slotShard(picked), false, null);
        }
        Outcome.Stop s = (Outcome.Stop) outcome;
        return new OutcomeRow(id, worker, token, Status.FAILED.dbName(), null, false, null, AttemptOp.KEEP, null,
                false, null, storable(s.error()), AwaitsOp.CLEAR, null, null, null, true, null,
                picked.row().parentId(), null, false, null, 1, null, null, slotKey(picked), slotShard(picked), false, null);
    }

    /**
     * The requeue of an inline continue whose next step was denied admission: back to runnable,
     * as a normal {@code next} would have left it, giving back any slot it still holds.
     */
    OutcomeRow requeue(Picked continuation, String worker, Instant now) {
        return new OutcomeRow(continuation.row().id(), worker, continuation.row().claimToken(), Status.RUNNABLE.dbName(),
                null, false, null, AttemptOp.KEEP, now, false, null, null, AwaitsOp.KEEP, null, null, null, false, null,
                null, null, false, null, 1, null, null, slotKey(continuation), slotShard(continuation), false, null);
    }

    /** Serializes a value and holds it to the size limit, before anything is written. */
    private String write(String what, Object value) {
        String written = json.write(value);
        instanceRows.valueSize().check(what, written);
        return written;
    }

    private static String slotKey(Picked p) {
        return p.slot() == null ? null : p.slot().key();
    }

    private static Integer slotShard(Picked p) {
        return p.slot() == null ? null : p.slot().shard();
    }

    /** PostgreSQL timestamps end in year 294276; anything past year 9999 is a mistake, refused before the write. */
    private static void checkStorable(String what, Instant now, java.time.Duration d) {
        if (d.compareTo(java.time.Duration.ofDays(365L * 1000)) > 0) {
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
