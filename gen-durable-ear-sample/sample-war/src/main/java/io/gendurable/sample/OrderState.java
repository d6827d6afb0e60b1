package io.gendurable.sample;

/**
 * The durable state of one order workflow (serialized as JSON with JSON-B).
 *
 * @param orderId  the order's business id
 * @param account  the customer's account at the payment provider: the workflow's concurrency key
 * @param parcels  how many shipments the order fans out to
 * @param reserved whether stock was reserved
 * @param charged  whether the payment was requested
 */
public record OrderState(String orderId, String account, int parcels, boolean reserved, boolean charged) {

    /** @return a new order, nothing done yet */
    public static OrderState placed(String orderId, String account, int parcels) {
        return new OrderState(orderId, account, parcels, false, false);
    }

    OrderState reservedNow() {
        return new OrderState(orderId, account, parcels, true, charged);
    }

    OrderState chargedNow() {
        return new OrderState(orderId, account, parcels, reserved, true);
    }
}
