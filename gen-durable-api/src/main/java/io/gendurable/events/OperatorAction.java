package io.gendurable.events;

import java.time.Instant;

/**
 * A CDI event, fired synchronously after an operator's action committed (cancel, retry,
 * reschedule, pause, resume, purge), through {@code io.gendurable.DurableOperations}. Observe it
 * with {@code @Observes} for an audit trail.
 *
 * @param action    what was done
 * @param target    the instance id, or the queue, it was done to (for a bulk action: the count)
 * @param principal the caller's principal name, or null when there was none
 * @param reason    the reason given, or null
 * @param at        when it committed, by the engine's clock
 */
public record OperatorAction(Action action, String target, String principal, String reason, Instant at)
        implements EngineEvent {
    /** The actions. */
    public enum Action {
        /** an instance (and maybe its descendants) cancelled */
        CANCEL,
        /** a failed or cancelled instance made runnable again */
        RETRY,
        /** a runnable instance's time or priority changed */
        RESCHEDULE,
        /** a queue paused */
        PAUSE_QUEUE,
        /** a queue resumed */
        RESUME_QUEUE,
        /** ended instances deleted */
        PURGE,
        /** a schedule defined or replaced at run time */
        DEFINE_SCHEDULE,
        /** a schedule removed */
        REMOVE_SCHEDULE,
        /** a schedule paused */
        PAUSE_SCHEDULE,
        /** a schedule resumed */
        RESUME_SCHEDULE,
        /** a schedule's instance inserted now, outside its fire times */
        TRIGGER_SCHEDULE
    }
}
