package io.gendurable.events;

/**
 * Receives the engine's events without CDI (an engine built in plain Java). Called on the engine's
 * event dispatcher thread, one event at a time, in the order this node produced them; never on a
 * thread that claims, runs steps or writes outcomes. A listener that throws is logged and counted
 * ({@code gendurable.events.failed}) and keeps receiving; one that blocks holds back only the
 * events behind it, which are dropped and counted ({@code gendurable.events.dropped}) once the
 * dispatcher's queue is full.
 */
@FunctionalInterface
public interface EngineEventListener {

    /**
     * One event. Branch on its type ({@code if (event instanceof GateThrottled t) …}).
     *
     * @param event what happened, with its data
     */
    void onEvent(EngineEvent event);
}
