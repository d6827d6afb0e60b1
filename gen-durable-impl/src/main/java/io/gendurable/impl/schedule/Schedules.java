package io.gendurable.impl.schedule;

import io.gendurable.DurableSchedule;
import io.gendurable.Inserted;
import io.gendurable.ScheduleDefinition;
import io.gendurable.ScheduleStatus;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.insert.Inserter;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.runtime.EngineContext;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The recurring schedules: those the registered FSMs declare ({@link DurableSchedule}, read and
 * validated when the engine is built, so a bad one fails the deployment before any side effect,
 * and stored at start) and those defined at run time; their firing loop ({@link #firer()}); and
 * the operator's actions on them.
 */
public final class Schedules {
    private static final Logger LOG = System.getLogger("io.gendurable.schedule");

    private final EngineContext ctx;
    private final ScheduleSql sql;
    private final FireInserts inserts;
    private final Poke poke;
    private volatile List<ScheduleSpec> declared;
    private final ScheduleFirer firer;

    /**
     * Reads and validates the declared schedules of every registered FSM.
     *
     * @param ctx          the engine's context
     * @param inserter     inserts the fired instances
     * @param poke         told of the queues that got instances
     * @throws IllegalArgumentException naming the class and the field of an invalid schedule
     * @throws IllegalStateException    when two classes declare the same schedule name, naming both
     */
    public Schedules(EngineContext ctx, Inserter inserter, Poke poke) {
        this.ctx = ctx;
        this.sql = ctx.statements().of(ScheduleSql.class, ScheduleSql::new);
        this.inserts = new FireInserts(ctx, inserter);
        this.poke = poke;
        this.declared = declared(ctx);
        this.firer = new ScheduleFirer(ctx, inserts, poke);
    }

    private static List<ScheduleSpec> declared(EngineContext ctx) {
        Map<String, ScheduleSpec> byName = new LinkedHashMap<>();
        Map<String, Class<?>> declaredBy = new LinkedHashMap<>();
        for (FsmDefinition def : ctx.registry().all()) {
            if (ctx.registry().newest(def.name()).orElseThrow() != def) {
                continue;  // an older version's schedules are its successor's to declare
            }
            for (DurableSchedule a : def.beanClass().getAnnotationsByType(DurableSchedule.class)) {
                ScheduleSpec spec = ScheduleSpec.of(def, a, ctx.json());
                Class<?> other = declaredBy.putIfAbsent(spec.name(), def.beanClass());
                if (other != null) {
                    throw new IllegalStateException("two @DurableSchedule declare the name '" + spec.name() + "': on "
                            + other.getName() + " and on " + def.beanClass().getName()
                            + "; give each a distinct @DurableSchedule(name = …)");
                }
                byName.put(spec.name(), spec);
            }
        }
        return List.copyOf(byName.values());
    }

    /** @return the declared schedules' names */
    public List<String> declaredNames() {
        return declared.stream().map(ScheduleSpec::name).toList();
    }

    /**
     * Stores the declared schedules (an unchanged one keeps its next fire time) and deletes the
     * declared schedules of this node's FSMs that its code no longer declares. Run at start.
     */
    public void seed() {
        if (ctx.registry().all().isEmpty()) {
            return;
        }
        declared = declared(ctx);  // FSMs registered since the engine was built (the test kit's register)
        Instant now = ctx.clock().instant();
        Collection<String> fsms = ctx.registry().all().stream().map(FsmDefinition::name).collect(Collectors.toSet());
        int removed = ctx.db().inTransaction(c -> {
            for (ScheduleSpec spec : declared) {
                sql.upsert(c, spec.upsert(now), now);
            }
            return sql.deleteOrphans(c, fsms, declaredNames());
        });
        if (!declared.isEmpty() || removed > 0) {
            LOG.log(Level.INFO, "gen-durable schedules declared: " + declaredNames()
                    + (removed > 0 ? "; " + removed + " no longer declared, removed" : ""));
        }
    }

    /** @return the firing loop */
    public ScheduleFirer firer() {
        return firer;
    }

    /** @return every schedule, by name */
    public List<ScheduleStatus> list() {
        Map<String, String> poisoned = firer().poisoned();
        return ctx.db().inTransaction(sql::list).stream().map(ScheduleSql.Row::status)
                .map(s -> s.withCannotFire(poisoned.get(s.name()))).toList();
    }

    /** Stores a run-time definition. @return it, as stored */
    public ScheduleStatus define(ScheduleDefinition definition) {
        Objects.requireNonNull(definition, "definition must not be null");
        FsmDefinition def = ctx.registry().newest(definition.fsm()).orElseThrow(() -> new IllegalArgumentException(
                "schedule '" + definition.name() + "': fsm '" + definition.fsm() + "' is not registered on this node; registered: "
                        + ctx.registry().describe()));
        ScheduleSpec spec = ScheduleSpec.of(def, definition, ctx.json());
        Instant now = ctx.clock().instant();
        return ctx.db().inTransaction(c -> {
            sql.upsert(c, spec.upsert(now), now);
            return sql.find(c, spec.name()).orElseThrow();
        }).status();
    }

    /** @return whether the schedule existed */
    public boolean remove(String name) {
        return ctx.db().inTransaction(c -> sql.delete(c, name));
    }

    /** @return the paused schedule */
    public ScheduleStatus pause(String name, String by, String reason) {
        Instant now = ctx.clock().instant();
        return ctx.db().inTransaction(c -> {
            if (!sql.pause(c, name, by, reason, now)) {
                throw noSuch(name, c);
            }
            return sql.find(c, name).orElseThrow();
        }).status();
    }

    /** @return the resumed schedule */
    public ScheduleStatus resume(String name) {
        Instant now = ctx.clock().instant();
        return ctx.db().inTransaction(c -> {
            if (!sql.resume(c, name, now)) {
                throw noSuch(name, c);
            }
            return sql.find(c, name).orElseThrow();
        }).status();
    }

    /** Inserts one instance now, keyed {@code schedule:<name>:manual:<now>}. @return it */
    public Inserted trigger(String name) {
        Instant now = ctx.clock().instant();
        String[] queue = new String[1];
        Inserted inserted = ctx.db().inTransaction(c -> {
            ScheduleSql.Row row = sql.find(c, name).orElseThrow(() -> noSuch(name, c));
            queue[0] = inserts.queue(row);
            return inserts.insert(c, row, List.of("schedule:" + name + ":manual:" + now))[0];
        });
        if (inserted != null && !inserted.duplicate()) {
            poke.poke(queue[0]);
        }
        return inserted;
    }

    private IllegalArgumentException noSuch(String name, Connection c) {
        List<String> names = new ArrayList<>();
        try {
            sql.list(c).forEach(r -> names.add(r.name()));
        } catch (SQLException e) {
            names.add("(could not list: " + e.getMessage() + ")");
        }
        return new IllegalArgumentException("no schedule is named '" + name + "'; schedules: " + names);
    }
}
