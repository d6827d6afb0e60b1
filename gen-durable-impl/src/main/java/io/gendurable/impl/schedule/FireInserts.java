package io.gendurable.impl.schedule;

import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.NewInstance;
import io.gendurable.Status;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.insert.Inserter;
import io.gendurable.impl.runtime.EngineContext;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Inserts a schedule's instances, one per correlation key, in the caller's transaction. Each key
 * is held in every status ({@code DONE}, {@code FAILED} and {@code CANCELLED} too), so a fire
 * time inserted once is a duplicate ever after (until the GC deletes the instance).
 */
final class FireInserts {
    private static final Status[] EVERY_STATUS = Status.values();

    private final EngineContext ctx;
    private final Inserter inserter;

    FireInserts(EngineContext ctx, Inserter inserter) {
        this.ctx = ctx;
        this.inserter = inserter;
    }

    /** @param name a schedule @param fire one of its fire times @return the correlation key of that fire */
    static String key(String name, Instant fire) {
        return "schedule:" + name + ":" + fire;
    }

    /**
     * @param c     the transaction
     * @param row   the schedule
     * @param keys  one correlation key per instance
     * @return one answer per key (a duplicate for a key already held); null entries are keys whose
     *         holder was deleted meanwhile, and count as fired
     * @throws IllegalArgumentException when the schedule's FSM is not registered on this node
     */
    Inserted[] insert(Connection c, ScheduleSql.Row row, List<String> keys) throws SQLException {
        FsmDefinition def = ctx.registry().newest(row.fsm()).orElseThrow(() -> new IllegalArgumentException(
                "schedule '" + row.name() + "': fsm '" + row.fsm() + "' is not registered on this node; registered: "
                        + ctx.registry().describe()));
        Object state = ctx.json().read(row.stateJson(), def.stateType());
        List<NewInstance> instances = new ArrayList<>(keys.size());
        for (String key : keys) {
            InsertOptions options = InsertOptions.builder().correlationKey(key).correlationScope(EVERY_STATUS).build();
            instances.add(new NewInstance(row.fsm(), state, options));
        }
        return inserter.insertIn(c, instances);
    }

    /** @return the queue the schedule's instances go to */
    String queue(ScheduleSql.Row row) {
        return ctx.registry().newest(row.fsm()).map(FsmDefinition::queue).orElse("default");
    }
}
