package io.gendurable.impl.ops;

import io.gendurable.InstanceSnapshot;
import io.gendurable.Status;
import io.gendurable.impl.db.InstanceRow;
import io.gendurable.impl.json.Json;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;

/** The read-only entity as the public snapshot: {@code find}, the test kit's reads and the operations API's. */
public final class Rows {
    private Rows() {
    }

    /** @param r a row @param json JSON-B @return the row as the public snapshot */
    public static InstanceSnapshot snapshot(InstanceRow r, Json json) {
        return new InstanceSnapshot(r.id(), r.fsm(), r.fsmVersion(), r.step(), Status.fromDb(r.status()),
                r.attempt(), r.queue(), r.priority(), instant(r.eligibleAt()), r.correlationKey(),
                r.concurrencyKey(), r.awaits() == null ? List.of() : List.of(r.awaits()),
                instant(r.awaitDeadline()), r.parentId(), r.childrenPending(), json.value(r.state()),
                json.value(r.result()), r.lastError(), instant(r.insertedAt()), instant(r.updatedAt()));
    }

    static Instant instant(OffsetDateTime t) {
        return t == null ? null : t.toInstant();
    }
}
