package io.gendurable.sample;

/**
 * The durable state of one order.
 *
 * @param orderId  the order's business id
 * @param reserved whether stock was reserved
 * @param charged  whether the payment was charged
 */
public record OrderState(String orderId, boolean reserved, boolean charged) {
}
