package io.gendurable.sample;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.DurableValue;
import io.gendurable.GenDurable;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The sample's REST endpoints, under {@code /api/orders}:
 * <ul>
 *   <li>{@code POST /{orderId}?account=acme&parcels=2}: starts the order's workflow (201), or
 *       finds the live one (200, {@code duplicate: true}); the correlation key is
 *       {@code order:<orderId>};</li>
 *   <li>{@code POST /{orderId}/transactional?fail=false}: the same, through the {@link OrderService}
 *       EJB's JTA transaction; {@code fail=true} rolls it back (409) and no workflow exists;</li>
 *   <li>{@code POST /{orderId}/signals/{name}}: signals the order's live workflow (an optional
 *       JSON body of at most 64 KiB is the payload; an {@code Idempotency-Key} header of visible
 *       ASCII deduplicates);</li>
 *   <li>{@code GET /{orderId}}: the order's live workflow, by correlation key;</li>
 *   <li>{@code GET /instance/{id}?wait=PT5S&until=terminal}: waits up to {@code wait} through
 *       {@code GenDurable.await}: 200 done (with the result), 422 failed, 202 still running or
 *       parked, 404 unknown, 400 for a bad {@code wait} or {@code until}.</li>
 * </ul>
 */
@RequestScoped
@Path("orders")
@Produces(MediaType.APPLICATION_JSON)
public class OrderResource {
    private static final Jsonb JSONB = JsonbBuilder.create();

    @Inject
    GenDurable durable;

    @EJB
    OrderService orders;

    /** @return the correlation key of an order's workflow */
    static String correlationKey(String orderId) {
        return "order:" + orderId;
    }

    /**
     * Starts the workflow of an order. While it is live, a repeat finds it instead.
     *
     * @param orderId the order ({@code [A-Za-z0-9_-]{1,64}})
     * @param account the payment account, the key of the {@code psp} gate
     * @param parcels how many shipments to fan out (1 to 20)
     * @return 201 with the instance id, 200 for a duplicate, 400 for bad input
     */
    @POST
    @Path("{orderId}")
    public Response create(@PathParam("orderId") String orderId,
                           @QueryParam("account") @DefaultValue("acme") String account,
                           @QueryParam("parcels") @DefaultValue("2") String parcels) {
        String bad = first(OrderInput.name("orderId", orderId), OrderInput.name("account", account),
                OrderInput.parcels(parcels));
        if (bad != null) {
            return badRequest(bad);
        }
        Inserted r = durable.insert(OrderWorkflow.class, OrderState.placed(orderId, account, Integer.parseInt(parcels)),
                InsertOptions.builder().correlationKey(correlationKey(orderId)).build());
        return Response.status(r.duplicate() ? Response.Status.OK : Response.Status.CREATED)
                .entity(Map.of("id", r.id(), "duplicate", r.duplicate(),
                        "wait", "/api/orders/instance/" + r.id() + "?wait=PT5S"))
                .build();
    }

    /**
     * Starts the workflow inside the EJB's JTA transaction (transactional enqueue).
     *
     * @param orderId the order
     * @param fail    make the business transaction fail after the insert
     * @return 201 with the id when committed; 409 when rolled back
     */
    @POST
    @Path("{orderId}/transactional")
    public Response createInTransaction(@PathParam("orderId") String orderId,
                                        @QueryParam("fail") @DefaultValue("false") boolean fail) {
        String bad = OrderInput.name("orderId", orderId);
        if (bad != null) {
            return badRequest(bad);
        }
        try {
            Inserted r = orders.insertInTransaction(orderId, fail);
            return Response.status(r.duplicate() ? Response.Status.OK : Response.Status.CREATED)
                    .entity(Map.of("id", r.id(), "duplicate", r.duplicate())).build();
        } catch (OrderRejected e) {
            return Response.status(Response.Status.CONFLICT)
                    .entity(Map.of("error", e.getMessage(), "rolledBack", true)).build();
        }
    }

    /**
     * Sends a signal to the order's live workflow.
     *
     * @param orderId   the order
     * @param name      the signal's name, e.g. {@code payment_settled}
     * @param dedupKey  an optional deduplication key
     * @param body      an optional JSON payload
     * @return 202 delivered, 200 duplicate, 404 no live workflow, 400 bad input
     */
    @POST
    @Path("{orderId}/signals/{name}")
    @Consumes({MediaType.APPLICATION_JSON, MediaType.TEXT_PLAIN, MediaType.WILDCARD})
    public Response signal(@PathParam("orderId") String orderId, @PathParam("name") String name,
                           @HeaderParam("Idempotency-Key") String dedupKey, String body) {
        String bad = first(OrderInput.name("orderId", orderId), OrderInput.name("signal name", name),
                OrderInput.idempotencyKey(dedupKey), OrderInput.body(body));
        if (bad != null) {
            return badRequest(bad);
        }
        Object payload;
        try {
            payload = body == null || body.isBlank() ? null : JSONB.fromJson(body, Object.class);
        } catch (JsonbException e) {
            return badRequest("the body must be JSON (or empty): " + e.getMessage());
        }
        SignalTarget target = SignalTarget.correlationKey(correlationKey(orderId));
        SignalResult r = dedupKey == null || dedupKey.isBlank()
                ? durable.signal(target, name, payload)
                : durable.signal(target, name, payload, dedupKey);
        Response.Status status = switch (r) {
            case DELIVERED -> Response.Status.ACCEPTED;
            case DUPLICATE -> Response.Status.OK;
            case NO_TARGET -> Response.Status.NOT_FOUND;
        };
        return Response.status(status).entity(Map.of("signal", name, "result", r.name())).build();
    }

    /**
     * @param orderId the order
     * @return its live workflow (200), or 404
     */
    @GET
    @Path("{orderId}")
    public Response find(@PathParam("orderId") String orderId) {
        String bad = OrderInput.name("orderId", orderId);
        if (bad != null) {
            return badRequest(bad);
        }
        return durable.find(correlationKey(orderId))
                .map(s -> Response.ok(view(s)).build())
                .orElse(Response.status(Response.Status.NOT_FOUND)
                        .entity(Map.of("error", "no live workflow for order " + orderId)).build());
    }

    /**
     * Reads an instance, waiting up to {@code wait} for it to finish ({@code until=terminal},
     * the default) or to finish or park ({@code until=settled}).
     *
     * @param instanceId the instance id (a positive number)
     * @param wait  an ISO-8601 duration up to PT30S; PT0S (the default) reads at once
     * @param until {@code terminal} or {@code settled}
     * @return 200 done, 422 failed, 202 running or parked, 404 unknown, 400 bad parameters
     */
    @GET
    @Path("instance/{id}")
    public Response read(@PathParam("id") String instanceId, @QueryParam("wait") @DefaultValue("PT0S") String wait,
                         @QueryParam("until") @DefaultValue("terminal") String until) {
        Duration timeout = OrderInput.waitOrNull(wait);
        String bad = first(OrderInput.id(instanceId), timeout == null ? OrderInput.waitError(wait) : null,
                OrderInput.until(until));
        if (bad != null) {
            return badRequest(bad);
        }
        long id = Long.parseLong(instanceId);
        AwaitUntil mode = AwaitUntil.valueOf(until.toUpperCase(Locale.ROOT));
        AwaitResult r = durable.await(id, timeout, mode);
        if (r instanceof AwaitResult.Done d) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("id", d.id());
            v.put("status", "DONE");
            v.put("result", plain(d.result()));
            return Response.ok(v).build();
        }
        if (r instanceof AwaitResult.Failed f) {
            return Response.status(422)
                    .entity(Map.of("id", f.id(), "status", "FAILED", "error", String.valueOf(f.error()))).build();
        }
        if (r instanceof AwaitResult.Awaiting a) {
            return Response.status(Response.Status.ACCEPTED).entity(view(a.snapshot())).build();
        }
        if (r instanceof AwaitResult.Busy b) {
            return Response.status(Response.Status.ACCEPTED).entity(view(b.snapshot())).build();
        }
        return Response.status(Response.Status.NOT_FOUND).entity(Map.of("id", id, "error", "no such instance")).build();
    }

    private static Map<String, Object> view(InstanceSnapshot s) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("id", s.id());
        v.put("fsm", s.fsm());
        v.put("status", s.status().name());
        v.put("step", s.step());
        v.put("attempt", s.attempt());
        if (!s.awaits().isEmpty()) {
            v.put("awaits", s.awaits());
            v.put("awaitDeadline", String.valueOf(s.awaitDeadline()));
        }
        if (s.childrenPending() > 0) {
            v.put("childrenPending", s.childrenPending());
        }
        v.put("state", plain(s.state()));
        if (s.lastError() != null) {
            v.put("lastError", s.lastError());
        }
        return v;
    }

    /** @return the stored JSON as plain maps, lists, strings, numbers and booleans */
    private static Object plain(DurableValue value) {
        return value == null || value.isNull() ? null : value.as(Object.class);
    }

    private static String first(String... problems) {
        for (String p : problems) {
            if (p != null) {
                return p;
            }
        }
        return null;
    }

    private static Response badRequest(String message) {
        return Response.status(Response.Status.BAD_REQUEST).entity(Map.of("error", message)).build();
    }
}
