package io.gendurable.events;

/**
 * An admission met another node creating the same rate limit's or gate's counters (a cold bucket
 * minted by both) and was retried against the winner's. K = 1 key races are {@link KeyContended}.
 *
 * @param queue the queue whose claimed rows were being admitted
 * @param count races this admission lost
 */
public record LimitContended(String queue, int count) implements EngineEvent {
}
