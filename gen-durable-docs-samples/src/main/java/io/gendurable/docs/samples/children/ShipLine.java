package io.gendurable.docs.samples.children;

import io.gendurable.DurableFsm;
import io.gendurable.Job;
import io.gendurable.StepContext;
import io.gendurable.docs.samples.children.OrderTypes.Shipment;
import io.gendurable.docs.samples.children.OrderTypes.Tracking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

// tag::job[]
@DurableFsm(name = "ship-line", queue = "shipping", maxAttempts = 5)
@ApplicationScoped
public class ShipLine implements Job<Shipment> {
    @Inject Warehouse warehouse;                                  // your own bean

    @Override
    public Object perform(Shipment s, StepContext ctx) throws Exception {
        String number = warehouse.ship(s.orderId(), s.line(), "shipment-" + ctx.id());  // idempotency key
        return new Tracking(s.line().no(), number);               // the result says which line it was
    }
}
// end::job[]
