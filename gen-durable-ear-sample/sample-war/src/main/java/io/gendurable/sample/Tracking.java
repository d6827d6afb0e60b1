package io.gendurable.sample;

/**
 * A shipped parcel: the result of a {@link ShipmentJob}.
 *
 * @param parcel the parcel's number
 * @param number the carrier's tracking number
 */
public record Tracking(int parcel, String number) {
}
