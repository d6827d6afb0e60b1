package io.gendurable.docs.samples.await;

import io.gendurable.AwaitResult;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.docs.samples.gettingstarted.Checkout;
import io.gendurable.docs.samples.gettingstarted.CheckoutState;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URI;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;

// tag::resource[]
@Path("checkouts")
@Produces(MediaType.APPLICATION_JSON)
public class CheckoutResource {                        // no @Transactional: await holds no transaction
    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    @Inject GenDurable durable;

    @POST
    @Path("{orderId}")
    public Response start(@PathParam("orderId") String orderId, @Context UriInfo uri) {
        Inserted r = durable.insert(Checkout.class, new CheckoutState(orderId),
                InsertOptions.builder().correlationKey("order:" + orderId).build());
        URI result = uri.getBaseUriBuilder().path(CheckoutResource.class).path(Long.toString(r.id()))
                .queryParam("wait", "PT5S").build();
        return Response.accepted(Map.of("id", r.id(), "duplicate", r.duplicate())).location(result).build();
    }

    @GET
    @Path("{id}")
    public Response result(@PathParam("id") long id, @QueryParam("wait") @DefaultValue("PT0S") String wait,
                           @Context UriInfo uri) {
        Duration timeout;
        try {
            timeout = Duration.parse(wait);
        } catch (DateTimeParseException e) {
            return Response.status(Response.Status.BAD_REQUEST)
                    .entity(Map.of("error", "wait must be an ISO-8601 duration such as PT5S")).build();
        }
        if (timeout.isNegative()) {
            return Response.status(Response.Status.BAD_REQUEST).entity(Map.of("error", "wait must not be negative")).build();
        }
        if (timeout.compareTo(MAX_WAIT) > 0) {
            timeout = MAX_WAIT;
        }

        AwaitResult a = durable.await(id, timeout);
        if (a instanceof AwaitResult.Done d) {
            return Response.ok(d.result().json()).build();                               // 200, the result
        }
        if (a instanceof AwaitResult.Failed f) {
            return Response.status(422).entity(Map.of("error", f.error())).build();       // 422
        }
        if (a instanceof AwaitResult.Awaiting w) {                                        // 202: parked
            return Response.accepted(Map.of("status", w.snapshot().status().name(),
                    "awaits", w.snapshot().awaits())).build();
        }
        if (a instanceof AwaitResult.Busy b) {                                            // 202: still working
            return Response.accepted(Map.of("status", b.snapshot().status().name()))
                    .location(uri.getRequestUri())                                        // come back here
                    .header("Retry-After", 1).build();
        }
        return Response.status(Response.Status.NOT_FOUND).build();                        // NotFound
    }
}
// end::resource[]
