package io.gendurable.docs.samples.children;

import io.gendurable.docs.samples.children.OrderTypes.Line;

/** The application's own warehouse client. */
public interface Warehouse {
    /**
     * Ships one line once per idempotency key.
     *
     * @param orderId        the order
     * @param line           the line
     * @param idempotencyKey stable across re-runs
     * @return the tracking number
     */
    String ship(String orderId, Line line, String idempotencyKey);
}
