package io.gendurable.admin;

import io.gendurable.admin.requests.Requests;
import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.problems.ProblemTranslation;
import io.gendurable.admin.access.AdminRoles;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.requests.SearchParams;
import io.gendurable.admin.problems.AdminProblem;
import io.gendurable.admin.requests.Input;

import io.gendurable.BulkResult;
import io.gendurable.NoSuchInstanceException;
import io.gendurable.RetryOptions;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.ParameterIn;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameters;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.time.Instant;
import java.util.Set;

/**
 * Instances: search, inspect, and the actions on one instance, under
 * {@code <application path>/gendurable/instances}. Reads need {@link AdminRoles#VIEWER} or
 * {@link AdminRoles#ADMIN}, actions {@link AdminRoles#ADMIN}; a method without its own
 * {@code @RolesAllowed} takes the class's, the admin role.
 */
@Path(GenDurableAdmin.PATH + "/instances")
@RequestScoped
@ProblemTranslation
@DeclareRoles({AdminRoles.VIEWER, AdminRoles.ADMIN})
@RolesAllowed(AdminRoles.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gen-durable instances", description = "Find, inspect, cancel, retry and reschedule FSM and job instances")
@SecurityScheme(securitySchemeName = InstancesResource.SECURITY, type = SecuritySchemeType.HTTP, scheme = "basic",
        description = "gendurable-viewer reads; gendurable-admin reads and acts")
@SecurityRequirement(name = InstancesResource.SECURITY)
public class InstancesResource {
    /** The OpenAPI security scheme every admin resource names: HTTP basic against the server's registry. */
    public static final String SECURITY = "gendurable-basic";

    @Inject
    EngineChoice engines;

    /**
     * @param uri the request, for its query parameters
     * @return one page of instances
     */
    @GET
    @RolesAllowed({AdminRoles.VIEWER, AdminRoles.ADMIN})
    @Operation(summary = "Search instances",
            description = "Any mix of filters, all of which must match; keyset-paged in id order (newest first by default): "
                    + "pass a page's nextCursor as cursor for the next page. Unknown or repeated parameters are refused.")
    @Parameters({
            @Parameter(name = "fsm", in = ParameterIn.QUERY, description = "FSM name, exactly",
                    schema = @Schema(type = SchemaType.STRING)),
            @Parameter(name = "fsmVersion", in = ParameterIn.QUERY, description = "FSM version (needs fsm)",
                    schema = @Schema(type = SchemaType.INTEGER)),
            @Parameter(name = "status", in = ParameterIn.QUERY, description = "statuses, repeated or comma-separated: "
                    + "RUNNABLE, EXECUTING, AWAITING_SIGNAL, AWAITING_CHILDREN, DONE, FAILED, CANCELLED",
                    schema = @Schema(type = SchemaType.STRING)),
            @Parameter(name = "queue", in = ParameterIn.QUERY, description = "queue, exactly",
                    schema = @Schema(type = SchemaType.STRING)),
            @Parameter(name = "step", in = ParameterIn.QUERY, description = "current (or last) step, exactly",
                    schema = @Schema(type = SchemaType.STRING)),
            @Parameter(name = "correlationKey", in = ParameterIn.QUERY, description = "correlation key, exactly",
                    schema = @Schema(type = SchemaType.STRING)),
            @Parameter(name = "correlationKeyPrefix", in = ParameterIn.QUERY,
                    description = "correlation key prefix, case-sensitive (exclusive with correlationKey)",
                    schema = @Schema(type = SchemaType.STRING)),
            @Parameter(name = "concurrencyKey", in = ParameterIn.QUERY, description = "concurrency key, exactly",
                    schema = @Schema(type = SchemaType.STRING)),
            @Parameter(name = "parentId", in = ParameterIn.QUERY, description = "the children of this instance",
                    schema = @Schema(type = SchemaType.INTEGER)),
            @Parameter(name = "insertedFrom", in = ParameterIn.QUERY, description = "inserted at or after (ISO-8601)",
                    schema = @Schema(type = SchemaType.STRING, format = "date-time")),
            @Parameter(name = "insertedTo", in = ParameterIn.QUERY, description = "inserted before (ISO-8601)",
                    schema = @Schema(type = SchemaType.STRING, format = "date-time")),
            @Parameter(name = "updatedFrom", in = ParameterIn.QUERY, description = "last changed at or after (ISO-8601)",
                    schema = @Schema(type = SchemaType.STRING, format = "date-time")),
            @Parameter(name = "updatedTo", in = ParameterIn.QUERY, description = "last changed before (ISO-8601)",
                    schema = @Schema(type = SchemaType.STRING, format = "date-time")),
            @Parameter(name = "errorContains", in = ParameterIn.QUERY, description = "text of the last error, ignoring case",
                    schema = @Schema(type = SchemaType.STRING)),
            @Parameter(name = "pageSize", in = ParameterIn.QUERY, description = "1 to 1000, default 50",
                    schema = @Schema(type = SchemaType.INTEGER)),
            @Parameter(name = "order", in = ParameterIn.QUERY, description = "NEWEST_FIRST (default) or OLDEST_FIRST",
                    schema = @Schema(type = SchemaType.STRING, enumeration = {"NEWEST_FIRST", "OLDEST_FIRST"})),
            @Parameter(name = "cursor", in = ParameterIn.QUERY, description = "a nextCursor of the previous page",
                    schema = @Schema(type = SchemaType.STRING))
    })
    @APIResponse(responseCode = "200", description = "a page",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Page.class)))
    @APIResponse(responseCode = "400", description = "a parameter is unknown, repeated or not accepted",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Views.Page search(@Context UriInfo uri) {
        return Views.Page.of(engines.operations().search(SearchParams.query(uri.getQueryParameters(), Set.of())));
    }

    /**
     * @param id the instance id
     * @return it, with what it waits for
     */
    @GET
    @Path("{id}")
    @RolesAllowed({AdminRoles.VIEWER, AdminRoles.ADMIN})
    @Operation(summary = "Inspect an instance",
            description = "Its snapshot, pending inbox, children per status, parent, claim, gate and rate limit")
    @APIResponse(responseCode = "200", description = "the instance's details",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Details.class)))
    @APIResponse(responseCode = "400", description = "the id is not a positive whole number",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "no such instance",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Views.Details inspect(@Parameter(description = "instance id") @PathParam("id") String id) {
        long n = Input.id("id", id);
        return engines.operations().inspect(n).map(Views.Details::of).orElseThrow(() -> new NoSuchInstanceException(n));
    }

    /**
     * @param uri  the request: the search's filters as query parameters (at least one)
     * @param body {@link Requests.BulkCancel}
     * @return how many matched and how many were cancelled
     */
    @POST
    @Path("bulk/cancel")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.BulkCancel.class)))
    @Operation(summary = "Cancel every live instance a search finds",
            description = "Page by page (pageSize is the batch, one transaction each), as a single cancel does; "
                    + "a search without any filter is refused")
    @APIResponse(responseCode = "200", description = "counts",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = BulkResult.class)))
    @APIResponse(responseCode = "400", description = "no filter, or a parameter or body field not accepted",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public BulkResult cancelAll(@Context UriInfo uri, String body) {
        JsonBody b = JsonBody.parse(body, Requests.BulkCancel.FIELDS);
        return engines.operations().cancelAll(SearchParams.query(uri.getQueryParameters(), Set.of()), b.string("reason"));
    }

    /**
     * @param uri  the request: the search's filters as query parameters (at least one)
     * @param body {@link Requests.Empty}
     * @return how many matched and how many were retried
     */
    @POST
    @Path("bulk/retry")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Empty.class)))
    @Operation(summary = "Retry every failed or cancelled instance a search finds",
            description = "Each in its own transaction, page by page; one whose correlation key another live instance "
                    + "holds is skipped; a search without any filter is refused")
    @APIResponse(responseCode = "200", description = "counts",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = BulkResult.class)))
    @APIResponse(responseCode = "400", description = "no filter, or a parameter not accepted",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public BulkResult retryAll(@Context UriInfo uri, String body) {
        JsonBody.parse(body, Set.of());
        return engines.operations().retryAll(SearchParams.query(uri.getQueryParameters(), Set.of()));
    }

    /**
     * @param uri  the request: the search's filters as query parameters (at least one)
     * @param body {@link Requests.Empty}
     * @return how many matched and how many were deleted
     */
    @POST
    @Path("bulk/purge")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Empty.class)))
    @Operation(summary = "Delete every ended instance a search finds",
            description = "Done, failed and cancelled ones, with their inbox, page by page; a finished child whose parent "
                    + "has not finished is kept; a search without any filter is refused")
    @APIResponse(responseCode = "200", description = "counts",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = BulkResult.class)))
    @APIResponse(responseCode = "400", description = "no filter, or a parameter not accepted",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public BulkResult purge(@Context UriInfo uri, String body) {
        JsonBody.parse(body, Set.of());
        return engines.operations().purge(SearchParams.query(uri.getQueryParameters(), Set.of()));
    }

    /**
     * @param id   the instance id
     * @param body {@link Requests.Cancel}
     * @return what was cancelled
     */
    @POST
    @Path("{id}/cancel")
    @Operation(summary = "Cancel a live instance",
            description = "It ends CANCELLED with the reason as its last error; a step running for it commits nothing; "
                    + "withDescendants also cancels its live descendants in the same transaction")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Cancel.class)))
    @APIResponse(responseCode = "200", description = "cancelled",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Cancelled.class)))
    @APIResponse(responseCode = "400", description = "bad id or body",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "no such instance",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "it has already ended",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Views.Cancelled cancel(@Parameter(description = "instance id") @PathParam("id") String id, String body) {
        long n = Input.id("id", id);
        JsonBody b = JsonBody.parse(body, Requests.Cancel.FIELDS);
        return Views.Cancelled.of(engines.operations().cancel(n, b.string("reason"), b.bool("withDescendants", false)));
    }

    /**
     * @param id   the instance id
     * @param body {@link Requests.Retry}
     * @return the instance, runnable
     */
    @POST
    @Path("{id}/retry")
    @Operation(summary = "Retry a failed or cancelled instance",
            description = "Runnable again, due now, attempts from 1: from the step it ended in or fromStep, with its state "
                    + "or the replacement state (checked against the FSM's state type); its correlation key is taken again")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Retry.class)))
    @APIResponse(responseCode = "200", description = "runnable again",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Instance.class)))
    @APIResponse(responseCode = "400", description = "bad id or body, or a state the FSM cannot read",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "no such instance",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "not failed or cancelled, or another live instance holds its correlation key",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Views.Instance retry(@Parameter(description = "instance id") @PathParam("id") String id, String body) {
        long n = Input.id("id", id);
        JsonBody b = JsonBody.parse(body, Requests.Retry.FIELDS);
        RetryOptions options = RetryOptions.defaults();
        String step = b.string("fromStep");
        if (step != null) {
            options = options.fromStep(step);
        }
        if (b.value("state").isPresent()) {
            JsonValue state = b.value("state").get();
            if (state.getValueType() == JsonValue.ValueType.NULL) {
                throw AdminProblem.invalidInput("state must not be null: leave it out to keep the instance's state");
            }
            options = options.withState(state);
        }
        return Views.Instance.of(engines.operations().retry(n, options));
    }

    /**
     * @param id   the instance id
     * @param body {@link Requests.Empty}
     * @return the instance, due now
     */
    @POST
    @Path("{id}/run-now")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Empty.class)))
    @Operation(summary = "Make a runnable instance due now")
    @APIResponse(responseCode = "200", description = "due now",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Instance.class)))
    @APIResponse(responseCode = "400", description = "bad id",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "no such instance",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "it is not runnable",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Views.Instance runNow(@Parameter(description = "instance id") @PathParam("id") String id, String body) {
        long n = Input.id("id", id);
        JsonBody.parse(body, Set.of());
        return Views.Instance.of(engines.operations().runNow(n));
    }

    /**
     * @param id   the instance id
     * @param body {@link Requests.Reschedule}
     * @return the instance
     */
    @POST
    @Path("{id}/reschedule")
    @Operation(summary = "Make a runnable instance due at an instant")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Reschedule.class)))
    @APIResponse(responseCode = "200", description = "rescheduled",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Instance.class)))
    @APIResponse(responseCode = "400", description = "bad id, missing or bad at",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "no such instance",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "it is not runnable",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Views.Instance reschedule(@Parameter(description = "instance id") @PathParam("id") String id, String body) {
        long n = Input.id("id", id);
        Instant at = JsonBody.parse(body, Requests.Reschedule.FIELDS).instant("at");
        if (at == null) {
            throw JsonBody.missing("at");
        }
        return Views.Instance.of(engines.operations().reschedule(n, at));
    }

    /**
     * @param id   the instance id
     * @param body {@link Requests.Priority}
     * @return the instance
     */
    @POST
    @Path("{id}/priority")
    @Operation(summary = "Change a runnable instance's priority", description = "0 or more; 0 is picked first")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Priority.class)))
    @APIResponse(responseCode = "200", description = "priority changed",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Instance.class)))
    @APIResponse(responseCode = "400", description = "bad id, missing or bad priority",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "404", description = "no such instance",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "409", description = "it is not runnable",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Views.Instance priority(@Parameter(description = "instance id") @PathParam("id") String id, String body) {
        long n = Input.id("id", id);
        Integer priority = JsonBody.parse(body, Requests.Priority.FIELDS).intNumber("priority");
        if (priority == null) {
            throw JsonBody.missing("priority");
        }
        return Views.Instance.of(engines.operations().changePriority(n, priority));
    }
}
