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
 */
public record ScheduleStatus(String name, String fsm, String cron, String zone, MisfirePolicy misfire, int maxCatchUp,
                             String origin, Instant nextFireAt, Instant lastFireAt, Long lastInstanceId,
                             boolean paused, String pausedBy, String reason) {
}
