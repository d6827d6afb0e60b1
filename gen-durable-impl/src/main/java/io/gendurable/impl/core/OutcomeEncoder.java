package io.gendurable.impl.core;

import io.gendurable.Outcome;
import io.gendurable.Status;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.sql.OutcomeRow;
import io.gendurable.impl.sql.OutcomeRow.AttemptOp;

import java.time.Instant;

/** Turns an {@link Outcome} into the row transition the flush writes. Serialization fails here, before any write. */
final class OutcomeEncoder {
    private final Json json;

    OutcomeEncoder(Json json) {
        this.json = json;
    }

    OutcomeRow encode(long id, String worker, Outcome outcome, Instant now) {
        if (outcome instanceof Outcome.Next n) {
            if (n.step().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("the step name contains a NUL character, which PostgreSQL text cannot store");
            }
            return new OutcomeRow(id, worker, Status.RUNNABLE.dbName(), n.step(), true,
                    json.write(n.state()), AttemptOp.RESET, now, false, null, null);
        }
        if (outcome instanceof Outcome.Retry r) {
            return new OutcomeRow(id, worker, Status.RUNNABLE.dbName(), null, r.state() != null,
                    json.write(r.state()), AttemptOp.INCREMENT, now.plus(r.delay()), false, null, null);
        }
        if (outcome instanceof Outcome.Done d) {
            return new OutcomeRow(id, worker, Status.DONE.dbName(), null, false, null,
                    AttemptOp.KEEP, null, true, json.write(d.result()), null);
        }
        Outcome.Stop s = (Outcome.Stop) outcome;
        return new OutcomeRow(id, worker, Status.FAILED.dbName(), null, false, null,
                AttemptOp.KEEP, null, false, null, storable(s.error()));
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
        return outcome instanceof Outcome.Done ? "done" : "stop";
    }
}
