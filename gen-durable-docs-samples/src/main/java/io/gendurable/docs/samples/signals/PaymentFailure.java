package io.gendurable.docs.samples.signals;

/**
 * A signal payload.
 *
 * @param reason why the payment failed
 */
public record PaymentFailure(String reason) {}
