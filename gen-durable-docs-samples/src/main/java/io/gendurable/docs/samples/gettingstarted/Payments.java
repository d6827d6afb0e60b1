package io.gendurable.docs.samples.gettingstarted;

/** The application's own payment service (not part of gen-durable). */
public interface Payments {
    /**
     * Charges an order once per idempotency key.
     *
     * @param orderId        the order
     * @param idempotencyKey the same key for every attempt of one step
     * @return true when charged
     */
    boolean charge(String orderId, String idempotencyKey);
}
