package io.gendurable;

/**
 * Something about a queue an operator should look at ({@link OperationsSummary#alerts()}).
 *
 * @param queue  the queue
 * @param kind   what is wrong
 * @param detail a sentence saying what, with the figures
 */
public record QueueAlert(String queue, Kind kind, String detail) {
    /** The kinds of alert. */
    public enum Kind {
        /** the queue has runnable instances and no live node claims from it: they wait for ever */
        NO_NODE_SERVES,
        /**
         * runnable instances of the queue carry a rate-limit name that no live node configures:
         * no node admits them (they stay runnable, counted in each node's unknown-rate-limit
         * counter) until a node configures {@code gendurable.rate-limits.<name>.*}
         */
        UNKNOWN_RATE_LIMIT
    }
}
