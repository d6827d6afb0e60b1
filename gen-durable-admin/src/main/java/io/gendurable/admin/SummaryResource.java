package io.gendurable.admin;

import io.gendurable.admin.problems.ProblemTranslation;
import io.gendurable.admin.access.AdminRoles;

import jakarta.annotation.security.DeclareRoles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** The summary, at {@code <application path>/gendurable/summary}; either role. */
@Path(GenDurableAdmin.PATH + "/summary")
@RequestScoped
@ProblemTranslation
@DeclareRoles({AdminRoles.VIEWER, AdminRoles.ADMIN})
@RolesAllowed({AdminRoles.VIEWER, AdminRoles.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gen-durable queues")
@SecurityRequirement(name = InstancesResource.SECURITY)
public class SummaryResource {
    @Inject
    EngineChoice engines;

    /** @return the counts per queue and status, the oldest runnable age per queue, the paused queues, the alerts */
    @GET
    @Operation(summary = "Counts per queue and status, oldest runnable age per queue, paused queues, alerts",
            description = "Reads the whole instance table in one scan: for a dashboard or a runbook, not per request. "
                    + "alerts: NO_NODE_SERVES (runnable instances, no live node claims from the queue), "
                    + "UNKNOWN_RATE_LIMIT (runnable instances carry a rate-limit name no live node configures)")
    @APIResponse(responseCode = "200", description = "the summary",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Summary.class)))
    public Views.Summary summary() {
        return Views.Summary.of(engines.operations().summary(), engines.operations().pausedQueues());
    }
}
