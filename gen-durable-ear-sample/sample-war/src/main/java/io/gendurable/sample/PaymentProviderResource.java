package io.gendurable.sample;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.Map;

/**
 * SAMPLE ONLY: simulates an outage of the payment provider, under {@code /api/psp/outage}
 * ({@code PUT} starts it, {@code DELETE} ends it, {@code GET} tells). While it lasts, the order
 * workflow's {@code charge} step fails; after {@code sample.charge-attempts} attempts the order
 * ends {@code FAILED} with the error and its stack trace, for an operator to retry from the
 * console once the provider is back.
 */
@RequestScoped
@Path("psp/outage")
@Produces(MediaType.APPLICATION_JSON)
public class PaymentProviderResource {
    @Inject
    PaymentProvider provider;

    /** @return whether an outage is simulated */
    @GET
    public Map<String, Boolean> get() {
        return Map.of("down", provider.down());
    }

    /** @return the outage, started */
    @PUT
    public Map<String, Boolean> start() {
        provider.outage(true);
        return get();
    }

    /** @return the outage, ended */
    @DELETE
    public Map<String, Boolean> end() {
        provider.outage(false);
        return get();
    }
}
