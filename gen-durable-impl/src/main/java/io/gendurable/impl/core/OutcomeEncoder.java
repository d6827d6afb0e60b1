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

    OutcomeRow encode(long id, String worker, int attempt, Outcome outcome, Instant now) {
        if (outcome instanceof Outcome.Next n) {
            return new OutcomeRow(id, worker, attempt, Status.RUNNABLE.dbName(), n.step(), true,
                    json.write(n.state()), AttemptOp.RESET, now, false, null, null);
        }
        if (outcome instanceof Outcome.Retry r) {
            return new OutcomeRow(id, worker, attempt, Status.RUNNABLE.dbName(), null, r.state() != null,
                    json.write(r.state()), AttemptOp.INCREMENT, now.plus(r.delay()), false, null, null);
        }
        if (outcome instanceof Outcome.Done d) {
            return new OutcomeRow(id, worker, attempt, Status.DONE.dbName(), null, false, null,
                    AttemptOp.KEEP, null, true, json.write(d.result()), null);
        }
        Outcome.Stop s = (Outcome.Stop) outcome;
        return new OutcomeRow(id, worker, attempt, Status.FAILED.dbName(), null, false, null,
                AttemptOp.KEEP, null, false, null, s.error());
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
