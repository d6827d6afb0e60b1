package io.gendurable;

import java.time.ZoneId;
import java.util.Objects;

/**
 * A recurring schedule defined at run time ({@link DurableOperations#defineSchedule}); the
 * same fields as {@link DurableSchedule}.
 *
 * @param name       the schedule's name, unique in the database
 * @param fsm        the FSM's name (see {@link FsmNames#nameOf})
 * @param cron       the cron expression (5 fields)
 * @param zone       the zone the expression is read in
 * @param state      the state each fired instance starts from (any JSON-B value)
 * @param misfire    what a missed fire time does
 * @param maxCatchUp with {@link MisfirePolicy#CATCH_UP}, at most this many missed fire times
 */
public record ScheduleDefinition(String name, String fsm, String cron, ZoneId zone, Object state,
                                 MisfirePolicy misfire, int maxCatchUp) {
    /**
     * Checks what can be checked without the engine (the engine checks the expression, and the
     * state against the FSM's state type).
     *
     * @param name       the schedule's name, unique in the database
     * @param fsm        the FSM's name
     * @param cron       the cron expression
     * @param zone       the zone; default UTC
     * @param state      the state each fired instance starts from; not null
     * @param misfire    what a missed fire time does; default {@link MisfirePolicy#SKIP}
     * @param maxCatchUp 1 or more
     */
    public ScheduleDefinition {
        Validation.requireName("name", name);
        Validation.requireName("fsm", fsm);
        if (cron == null || cron.isBlank()) {
            throw new IllegalArgumentException("cron must be a cron expression (5 fields: minute hour day-of-month month day-of-week), got '"
                    + cron + "'");
        }
        zone = zone == null ? ZoneId.of("UTC") : zone;
        if (state == null) {
            throw new IllegalArgumentException("state must not be null: each fired '" + fsm
                    + "' starts from it (an FSM with no data starts from an empty record)");
        }
        misfire = misfire == null ? MisfirePolicy.SKIP : misfire;
        if (maxCatchUp < 1) {
            throw new IllegalArgumentException("maxCatchUp must be 1 or more, got " + maxCatchUp);
        }
    }

    /**
     * @param name  the schedule's name
     * @param fsm   the FSM's class
     * @param cron  the cron expression, read in UTC
     * @param state the state each fired instance starts from
     * @param <S>   the state's type
     * @return a schedule that skips missed fire times
     */
    public static <S> ScheduleDefinition of(String name, Class<? extends Fsm<S>> fsm, String cron, S state) {
        return new ScheduleDefinition(name, FsmNames.nameOf(Objects.requireNonNull(fsm, "fsm must not be null")), cron,
                ZoneId.of("UTC"), state, MisfirePolicy.SKIP, 1);
    }

    /**
     * @param zone the zone
     * @return this schedule read in {@code zone}
     */
    public ScheduleDefinition inZone(ZoneId zone) {
        return new ScheduleDefinition(name, fsm, cron, zone, state, misfire, maxCatchUp);
    }

    /**
     * @param max at most this many
     * @return this schedule catching up missed fire times
     */
    public ScheduleDefinition catchingUp(int max) {
        return new ScheduleDefinition(name, fsm, cron, zone, state, MisfirePolicy.CATCH_UP, max);
    }
}
