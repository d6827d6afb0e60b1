package io.gendurable.sample;

import io.gendurable.DurableFsm;
import io.gendurable.Job;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Ships one parcel: a job (a one-step FSM) that the order workflow fans out, one per parcel, on
 * the {@code shipments} queue. Its return value is its result; an exception would retry it with
 * backoff.
 */
@DurableFsm(name = "shipment", queue = "shipments")
@ApplicationScoped
public class ShipmentJob implements Job<Shipment> {

    @Override
    public Object perform(Shipment s, StepContext ctx) {
        // a real job calls the carrier here, with ctx.id() as its idempotency key
        return new Tracking(s.parcel(), "TRK-" + s.orderId() + "-" + s.parcel());
    }
}
