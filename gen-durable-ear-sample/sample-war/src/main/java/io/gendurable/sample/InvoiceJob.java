package io.gendurable.sample;

import io.gendurable.DurableFsm;
import io.gendurable.Job;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Issues an invoice for an order: a job of the second engine, {@code billing}, which runs on its
 * own schema with its own queue ({@code gendurable.engines.billing.*} in
 * microprofile-config.properties). The default engine does not know it.
 */
@DurableFsm(name = "invoice", queue = "invoices", engine = "billing")
@ApplicationScoped
public class InvoiceJob implements Job<String> {

    @Override
    public Object perform(String orderId, StepContext ctx) {
        return "INV-" + orderId;
    }
}
