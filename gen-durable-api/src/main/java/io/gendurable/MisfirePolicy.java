package io.gendurable;

/**
 * What a schedule does with a fire time it missed by more than
 * {@code gendurable.schedules.misfire-threshold} (every node down, the schedule paused, the
 * database unreachable). Fire times within the threshold always fire.
 */
public enum MisfirePolicy {
    /** drop the missed fire times; the schedule goes on from the next one */
    SKIP,
    /** insert one instance per missed fire time, at most {@code maxCatchUp} of them (the latest) */
    CATCH_UP
}
