package io.gendurable.admin;

import io.gendurable.admin.requests.Requests;
import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.problems.ProblemTranslation;
import io.gendurable.admin.access.AdminRoles;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.requests.Input;

import io.gendurable.PausedQueue;
import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.List;

/**
 * Queue pauses, under {@code <application path>/gendurable/queues}: durable and cluster-wide.
 * The list needs either role; pause and resume need {@link AdminRoles#ADMIN}.
 */
@Path(GenDurableAdmin.PATH + "/queues")
@RequestScoped
@ProblemTranslation
@DeclareRoles({AdminRoles.VIEWER, AdminRoles.ADMIN})
@RolesAllowed(AdminRoles.ADMIN)
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gen-durable queues", description = "Pause and resume queues on every node")
@SecurityRequirement(name = InstancesResource.SECURITY)
public class QueuesResource {
    @Inject
    EngineChoice engines;

    /** @return the paused queues, by name */
    @GET
    @Path("paused")
    @RolesAllowed({AdminRoles.VIEWER, AdminRoles.ADMIN})
    @Operation(summary = "List the paused queues")
    @APIResponse(responseCode = "200", description = "the paused queues, by name",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = PausedQueue.class)))
    public List<PausedQueue> paused() {
        return engines.operations().pausedQueues();
    }

    /**
     * @param queue the queue
     * @param body  {@link Requests.Pause}
     * @return the pause as recorded
     */
    @PUT
    @Path("{queue}/pause")
    @Operation(summary = "Pause a queue",
            description = "No node claims from it any more (within one poll), running steps finish; survives restarts. "
                    + "Pausing a paused queue updates its reason.")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.Pause.class)))
    @APIResponse(responseCode = "200", description = "paused",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = PausedQueue.class)))
    @APIResponse(responseCode = "400", description = "bad queue name or reason",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public PausedQueue pause(@Parameter(description = "queue name") @PathParam("queue") String queue, String body) {
        Input.text("queue", queue);
        JsonBody b = JsonBody.parse(body, Requests.Pause.FIELDS);
        engines.operations().pauseQueue(queue, b.string("reason"));
        return engines.operations().pausedQueues().stream().filter(p -> p.queue().equals(queue)).findFirst()
                // resumed by someone else in between: answer what this call did
                .orElse(new PausedQueue(queue, null, null, b.string("reason")));
    }

    /**
     * @param queue the queue
     * @return whether it was paused
     */
    @DELETE
    @Path("{queue}/pause")
    @Operation(summary = "Resume a queue", description = "Every node claims from it again within one poll")
    @APIResponse(responseCode = "200", description = "resumed (wasPaused tells whether it was paused)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Resumed.class)))
    @APIResponse(responseCode = "400", description = "bad queue name",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Views.Resumed resume(@Parameter(description = "queue name") @PathParam("queue") String queue) {
        Input.text("queue", queue);
        return new Views.Resumed(queue, engines.operations().resumeQueue(queue));
    }
}
