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

import java.time.Instant;

/** The nodes' beacons, at {@code <application path>/gendurable/nodes}; either role. */
@Path(GenDurableAdmin.PATH + "/nodes")
@RequestScoped
@ProblemTranslation
@DeclareRoles({AdminRoles.VIEWER, AdminRoles.ADMIN})
@RolesAllowed({AdminRoles.VIEWER, AdminRoles.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gen-durable nodes", description = "The nodes running the engine, from their beacons")
@SecurityRequirement(name = InstancesResource.SECURITY)
public class NodesResource {
    @Inject
    EngineChoice engines;

    /** @return the nodes seen within the retention, with what they serve, run and did recently */
    @GET
    @Operation(summary = "The nodes, from their beacons",
            description = "Per node: its FSMs, queues, rate-limit and gate names, steps in flight per queue, done and "
                    + "failed outcomes per queue per minute over the last hour, step duration percentiles over the "
                    + "last ten minutes. live is false once its beacon is older than three of its intervals; a node "
                    + "that stopped cleanly, or was not heard from for gendurable.nodes.retention, is absent. "
                    + "One read of the small beacon table.")
    @APIResponse(responseCode = "200", description = "the nodes, by id",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Nodes.class)))
    public Views.Nodes nodes() {
        return new Views.Nodes(Instant.now(), engines.operations().nodes());
    }
}
