package io.gendurable.sample;

import io.gendurable.DurableEngine;
import io.gendurable.GenDurable;
import io.gendurable.Inserted;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** Inserts into the second engine, {@code billing}, injected by its name. */
@ApplicationScoped
public class Billing {
    @Inject
    @DurableEngine("billing")
    GenDurable billing;

    /**
     * @param orderId the order to invoice
     * @return the invoice job's row in the billing engine
     */
    public Inserted invoice(String orderId) {
        return billing.insert(InvoiceJob.class, orderId);
    }

    /** @return the billing engine */
    public GenDurable engine() {
        return billing;
    }
}
