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

/**
 * The application's engines, at {@code <application path>/gendurable/engines}; either role. Every
 * other admin call takes one of these names as its {@code engine} query parameter (default: the
 * default engine).
 */
@Path(GenDurableAdmin.PATH + "/engines")
@RequestScoped
@ProblemTranslation
@DeclareRoles({AdminRoles.VIEWER, AdminRoles.ADMIN})
@RolesAllowed({AdminRoles.VIEWER, AdminRoles.ADMIN})
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gen-durable engines", description = "The engines an admin call can name with its engine parameter")
@SecurityRequirement(name = InstancesResource.SECURITY)
public class EnginesResource {
    @Inject
    EngineChoice engines;

    /** @return the engines' names, the default one first */
    @GET
    @Operation(summary = "The application's engines",
            description = "default, then the engines of gendurable.engines by name. Every admin call takes one of "
                    + "them as its engine query parameter and then acts on that engine's schema only; without "
                    + "it, on the default engine. An unknown name answers 400.")
    @APIResponse(responseCode = "200", description = "the engines",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Views.Engines.class)))
    public Views.Engines engines() {
        return new Views.Engines(engines.names());
    }
}
