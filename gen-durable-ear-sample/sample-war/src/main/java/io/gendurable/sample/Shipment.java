package io.gendurable.sample;

/**
 * One parcel of an order: the arguments of a {@link ShipmentJob}.
 *
 * @param orderId the order
 * @param parcel  the parcel's number, from 1
 */
public record Shipment(String orderId, int parcel) {
}
