package io.gendurable.docs.samples.signals;

/** The application's payment service provider client. */
public interface Psp {
    /**
     * Asks for a payment; the answer arrives later as a signal.
     *
     * @param orderId        the order
     * @param idempotencyKey stable across re-runs
     */
    void requestPayment(String orderId, String idempotencyKey);
}
