package io.gendurable.sample;

import jakarta.ejb.ApplicationException;

/** A business failure after the insert: the container rolls the transaction back, the workflow's row with it. */
@ApplicationException(rollback = true)
public class OrderRejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message why */
    public OrderRejected(String message) {
        super(message);
    }
}
