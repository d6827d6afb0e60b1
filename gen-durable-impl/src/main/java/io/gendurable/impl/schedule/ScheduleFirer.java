package io.gendurable.impl.schedule;

import io.gendurable.Inserted;
import io.gendurable.MisfirePolicy;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.runtime.Background;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.Loops;
import io.gendurable.impl.runtime.Periodic;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;

/**
 * Fires the due schedules of the FSMs registered on this node, every
 * {@code gendurable.schedules.interval}: one transaction locks the due rows
 * ({@code FOR UPDATE SKIP LOCKED}: a row another node is firing is left to it), inserts one
 * instance per fire time to fire, and moves each row's next fire time past now. A fire time is
 * thereby taken by exactly one node; the instances' correlation keys back that up.
 */
public final class ScheduleFirer implements Background {
    private static final Logger LOG = System.getLogger("io.gendurable.schedule");
    /** Schedules fired per transaction; more wait for the next tick (which comes at once). */
    private static final int BATCH = 100;
    /** Fire times walked for one schedule in one tick before the rest counts as missed. */
    private static final int MAX_WALK = 1_000_000;

    private final EngineContext ctx;
    private final ScheduleSql sql;
    private final FireInserts inserts;
    private final Poke poke;
    private final Periodic loop;
    /** Schedules that could not fire at their last attempt on this node → why; removed once one fires. */
    private final Map<String, String> poisoned = new ConcurrentHashMap<>();

    /**
     * @param ctx     the engine's context
     * @param inserts inserts the fired instances
     * @param poke    told of the queues that got instances
     */
    ScheduleFirer(EngineContext ctx, FireInserts inserts, Poke poke) {
        this.ctx = ctx;
        this.sql = ctx.statements().of(ScheduleSql.class, ScheduleSql::new);
        this.inserts = inserts;
        this.poke = poke;
        this.loop = ctx.timer() == null ? null : new Periodic(ctx.timer(), ctx.config().schedules().interval(),
                () -> Loops.guarded(LOG, "schedules", ctx.metrics(), this::runOnce));
    }

    /** @return the schedules that could not fire at their last attempt on this node → the error */
    public Map<String, String> poisoned() {
        return Map.copyOf(poisoned);
    }

    @Override
    public Periodic loop() {
        if (loop == null) {
            throw new IllegalStateException("a synchronous engine context has no timer for the schedules' loop");
        }
        return loop;
    }

    /**
     * What one schedule's fire times came to.
     *
     * @param schedule  the schedule
     * @param fireTimes the fire times it fired (missed ones it skipped are not among them)
     * @param inserted  the instances inserted (fewer than the fire times when some were duplicates)
     * @param missed    how many fire times were missed by more than the misfire threshold
     * @param next      its next fire time
     */
    public record Fired(String schedule, List<Instant> fireTimes, List<Long> inserted, int missed, Instant next) {
    }

    /**
     * Fires what is due now. @return what was fired, per schedule (empty when nothing was due)
     */
    public List<Fired> runOnce() {
        return runAt(null);
    }

    /**
     * Fires what is due at {@code at}, as a tick of the loop at that instant would: the test kit's
     * catch-up when its clock has already passed a fire time (each is fired as of itself, not
     * counted as missed). The instances are inserted at the clock's instant.
     *
     * @param at the instant of the tick, or null for the clock's
     * @return what was fired, per schedule (empty when nothing was due)
     */
    public List<Fired> runAt(Instant at) {
        Set<String> fsms = new LinkedHashSet<>();
        for (FsmDefinition d : ctx.registry().all()) {
            fsms.add(d.name());
        }
        if (fsms.isEmpty()) {
            return List.of();
        }
        List<Fired> all = new ArrayList<>();
        Set<String> queues = new LinkedHashSet<>();
        while (true) {
            Instant now = at != null ? at : ctx.clock().instant();
            List<Fired> fired = ctx.db().inTransaction(c -> fire(c, now, fsms, queues));
            all.addAll(fired);
            if (fired.size() < BATCH) {
                break;
            }
        }
        queues.forEach(poke::poke);
        return all;
    }

    private List<Fired> fire(Connection c, Instant now, Set<String> fsms, Set<String> queues) throws SQLException {
        List<Fired> out = new ArrayList<>();
        for (ScheduleSql.Row row : sql.lockDue(c, now, fsms, BATCH)) {
            // Each schedule under a savepoint: one that cannot fire (its state no longer reads as its
            // FSM's state type, its cron no longer parses...) is rolled back alone and skipped; the
            // batch's others fire. It stays due, so it is tried again each tick until it fires.
            Savepoint sp = c.setSavepoint();
            try {
                out.add(fireOne(c, row, now, queues));
                c.releaseSavepoint(sp);
                poisoned.remove(row.name());
            } catch (RuntimeException | SQLException e) {
                c.rollback(sp);
                ctx.metrics().schedulesPoisoned.increment();
                String why = e.getClass().getSimpleName() + ": " + e.getMessage();
                if (poisoned.put(row.name(), why) == null) {
                    LOG.log(Level.ERROR, "gen-durable schedule " + row.name() + " cannot fire and is skipped until it can"
                            + " (fix or remove it; the other schedules fire): " + why, e);
                }
            }
        }
        return out;
    }

    private Fired fireOne(Connection c, ScheduleSql.Row row, Instant now, Set<String> queues) throws SQLException {
        {
            Fired f = due(row, now);
            List<Long> ids = new ArrayList<>();
            Long lastId = null;
            Instant lastFire = null;
            if (!f.fireTimes().isEmpty()) {
                List<String> keys = f.fireTimes().stream().map(t -> FireInserts.key(row.name(), t)).toList();
                Inserted[] answers = inserts.insert(c, row, keys);
                for (int i = 0; i < answers.length; i++) {
                    if (answers[i] != null && !answers[i].duplicate()) {
                        lastId = answers[i].id();
                        ids.add(lastId);
                        lastFire = f.fireTimes().get(i);
                        queues.add(inserts.queue(row));
                    }
                }
            }
            sql.advance(c, row.name(), f.next(), lastFire, lastId, now);
            if (f.missed() > 0) {
                LOG.log(Level.WARNING, "gen-durable schedule " + row.name() + ": " + f.missed()
                        + " fire time(s) missed by more than the misfire threshold, " + row.misfire()
                        + (row.misfire() == MisfirePolicy.CATCH_UP ? " (at most " + row.maxCatchUp() + ")" : ""));
            }
            LOG.log(Level.DEBUG, () -> "gen-durable schedule " + row.name() + " fired " + f.fireTimes() + ", next " + f.next());
            return new Fired(f.schedule(), f.fireTimes(), List.copyOf(ids), f.missed(), f.next());
        }
    }

    /** Which of a row's fire times up to {@code now} fire, and the next one after now. */
    Fired due(ScheduleSql.Row row, Instant now) {
        Cron cron = Cron.parse("schedule '" + row.name() + "'", row.cron(), row.zone());
        Duration threshold = ctx.config().schedules().misfireThreshold();
        Instant cutoff = now.minus(threshold);
        List<Instant> onTime = new ArrayList<>();
        Deque<Instant> missedKept = new ArrayDeque<>();
        int missed = 0;
        Instant t = row.nextFireAt();
        for (int walked = 0; !t.isAfter(now); walked++) {
            if (walked == MAX_WALK) {
                // a very frequent schedule left alone for very long: the rest is missed, uncounted
                t = cron.atOrAfter(cutoff);
                continue;
            }
            if (t.isBefore(cutoff)) {
                missed++;
                if (row.misfire() == MisfirePolicy.CATCH_UP) {
                    missedKept.addLast(t);
                    if (missedKept.size() > row.maxCatchUp()) {
                        missedKept.removeFirst();
                    }
                }
            } else {
                onTime.add(t);
            }
            t = cron.after(t);
        }
        List<Instant> fire = new ArrayList<>(missedKept);
        fire.addAll(onTime);
        return new Fired(row.name(), List.copyOf(fire), List.of(), missed, t);
    }
}
