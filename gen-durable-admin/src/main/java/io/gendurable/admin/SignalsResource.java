package io.gendurable.admin;

import io.gendurable.admin.requests.Requests;
import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.problems.ProblemTranslation;
import io.gendurable.admin.access.AdminRoles;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.problems.AdminProblem;

import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Signals, at {@code <application path>/gendurable/signals}; {@link AdminRoles#ADMIN}. */
@Path(GenDurableAdmin.PATH + "/signals")
@RequestScoped
@ProblemTranslation
@DeclareRoles({AdminRoles.VIEWER, AdminRoles.ADMIN})
@RolesAllowed(AdminRoles.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gen-durable signals", description = "Send a durable signal to an instance")
@SecurityRequirement(name = InstancesResource.SECURITY)
public class SignalsResource {
    @Inject
    EngineChoice engines;

    /**
     * @param body {@link Requests.Signal}
     * @return the result
     */
    @POST
    @Operation(summary = "Send a signal",
            description = "To an instance by id, or to the live holder of a correlation key (exactly one of the two). "
                    + "With a dedupKey, at most one delivery per target and key. The answer is 200 with the result: "
                    + "DELIVERED, DUPLICATE, or NO_TARGET when no live instance matches.")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Signal.class)))
    @APIResponse(responseCode = "200", description = "the result",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Signalled.class)))
    @APIResponse(responseCode = "400", description = "missing or bad target, name, payload or dedupKey",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Views.Signalled signal(String body) {
        JsonBody b = JsonBody.parse(body, Requests.Signal.FIELDS);
        Long id = b.wholeNumber("id");
        String key = b.string("correlationKey");
        if ((id == null) == (key == null)) {
            throw AdminProblem.invalidInput("give exactly one of id and correlationKey in the body, got "
                    + (id == null ? "neither" : "both"));
        }
        if (id != null && id < 1) {
            throw AdminProblem.invalidInput("id must be an instance id (1 or more), got " + id);
        }
        String name = b.string("name");
        if (name == null) {
            throw JsonBody.missing("name");
        }
        JsonValue payload = b.value("payload").filter(v -> v.getValueType() != JsonValue.ValueType.NULL).orElse(null);
        String dedupKey = b.string("dedupKey");
        SignalTarget target = id != null ? SignalTarget.id(id) : SignalTarget.correlationKey(key);
        SignalResult r = dedupKey == null
                ? engines.durable().signal(target, name, payload)
                : engines.durable().signal(target, name, payload, dedupKey);
        return new Views.Signalled(r);
    }
}
