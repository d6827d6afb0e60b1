package io.gendurable.events;

/**
 * An event of the engine, with its data: one record type per event. In a CDI container observe a
 * type with {@code @Observes} or {@code @ObservesAsync}; with an engine built in plain Java, register
 * an {@link EngineEventListener}. The engine builds an event only when something observes its type,
 * and hands it to a dispatcher thread of its own: observers never run on the engine's claim, step or
 * flush threads, nor inside its transactions. The dispatcher's queue is bounded; when an observer
 * falls behind, further events are dropped and counted ({@code gendurable.events.dropped}).
 *
 * <p>{@link StepCompleted}, {@link StepFailed} and {@link OperatorAction} keep their CDI delivery
 * (asynchronous, and synchronous in the operator's thread); a plain {@link EngineEventListener}
 * receives them through the dispatcher like the others.
 */
public sealed interface EngineEvent permits RowsClaimed, QueueSaturation, QueueDrained, ClaimsReclaimed, KeyContended,
        LimitContended, GateThrottled, RateLimitThrottled, RateLimitUnknown, OutcomeStale, LeasesReaped, AwaitsTimedOut,
        GcSwept, StepCompleted, StepFailed, OperatorAction {
}
