package io.gendurable.sample;

import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.Map;
import java.util.regex.Pattern;

/** REST endpoints of the sample: create an order workflow, read it. */
@Path("orders")
@Produces(MediaType.APPLICATION_JSON)
public class OrderResource {
    private static final Pattern ORDER_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    @Inject
    GenDurable durable;

    /** Starts the workflow of an order; the order id is the correlation key, so a repeat is a no-op. */
    @POST
    @Path("{orderId}")
    public Response create(@PathParam("orderId") String orderId) {
        if (!ORDER_ID.matcher(orderId).matches()) {
            return Response.status(Response.Status.BAD_REQUEST)
                    .entity(Map.of("error", "orderId must match " + ORDER_ID.pattern())).build();
        }
        Inserted r = durable.insert(OrderWorkflow.class, new OrderState(orderId, false, false),
                InsertOptions.builder().correlationKey("order:" + orderId).build());
        return Response.status(r.duplicate() ? Response.Status.OK : Response.Status.CREATED)
                .entity(Map.of("id", r.id(), "duplicate", r.duplicate())).build();
    }

    /** Reads an instance by id. */
    @GET
    @Path("instance/{id}")
    public Response read(@PathParam("id") long id) {
        return durable.find(id).map(OrderResource::view).map(v -> Response.ok(v).build())
                .orElse(Response.status(Response.Status.NOT_FOUND).build());
    }

    private static Map<String, Object> view(InstanceSnapshot s) {
        return Map.of("id", s.id(), "step", s.step(), "status", s.status().name(), "state", s.state().json(),
                "result", s.result().json());
    }
}
