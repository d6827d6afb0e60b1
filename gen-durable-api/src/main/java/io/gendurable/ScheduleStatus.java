package io.gendurable;

import java.time.Instant;

/**
 * A schedule as the database holds it ({@link DurableOperations#schedules}).
 *
 * @param name       its name
 * @param fsm        the FSM it inserts
 * @param cron       its cron expression
 * @param zone       the zone the expression is read in
 * @param misfire    what a missed fire time does
 * @param maxCatchUp with catch-up, at most this many missed fire times
 * @param origin     {@code annotation} ({@link DurableSchedule}) or {@code api} ({@link DurableOperations#defineSchedule})
 * @param nextFireAt the next fire time
 * @param lastFireAt the last fire time that inserted an instance, or null
 * @param lastInstanceId the instance that fire time inserted, or null
 * @param paused     whether it is paused
 * @param pausedBy   who paused it, or null
 * @param reason     the reason given, or null
 * @param cannotFire why its last attempt to fire on the node that answers failed (its stored state
 *                   no longer reads as its FSM's state type, say), or null: such a schedule is
 *                   skipped, the others fire; fix it with {@link DurableOperations#defineSchedule}
 *                   or remove it
 */
public record ScheduleStatus(String name, String fsm, String cron, String zone, MisfirePolicy misfire, int maxCatchUp,
                             String origin, Instant nextFireAt, Instant lastFireAt, Long lastInstanceId,
                             boolean paused, String pausedBy, String reason, String cannotFire) {
    /**
     * A schedule that fires ({@code cannotFire} null).
     *
     * @param name           its name
     * @param fsm            the FSM it inserts
     * @param cron           its cron expression
     * @param zone           the zone the expression is read in
     * @param misfire        what a missed fire time does
     * @param maxCatchUp     with catch-up, at most this many missed fire times
     * @param origin         {@code annotation} or {@code api}
     * @param nextFireAt     the next fire time
     * @param lastFireAt     the last fire time that inserted an instance, or null
     * @param lastInstanceId the instance that fire time inserted, or null
     * @param paused         whether it is paused
     * @param pausedBy       who paused it, or null
     * @param reason         the reason given, or null
     */
    public ScheduleStatus(String name, String fsm, String cron, String zone, MisfirePolicy misfire, int maxCatchUp,
                          String origin, Instant nextFireAt, Instant lastFireAt, Long lastInstanceId,
                          boolean paused, String pausedBy, String reason) {
        this(name, fsm, cron, zone, misfire, maxCatchUp, origin, nextFireAt, lastFireAt, lastInstanceId, paused,
                pausedBy, reason, null);
    }

    /**
     * @param why why it cannot fire, or null
     * @return this status with {@code cannotFire} set
     */
    public ScheduleStatus withCannotFire(String why) {
        return new ScheduleStatus(name, fsm, cron, zone, misfire, maxCatchUp, origin, nextFireAt, lastFireAt,
                lastInstanceId, paused, pausedBy, reason, why);
    }
}
