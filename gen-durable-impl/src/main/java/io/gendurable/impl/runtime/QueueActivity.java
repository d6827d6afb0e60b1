package io.gendurable.impl.runtime;

/** What one queue's feeder on this node is doing now: the figures of its gauges. */
public interface QueueActivity {
    /** @return the queue */
    String queue();

    /** @return steps running now */
    int inFlight();

    /** @return claimed rows waiting for a free slot */
    int buffered();

    /** @return rows claimed beyond the free slots now: the configured prefetch, or where the auto prefetch has adapted to */
    int prefetch();
}
