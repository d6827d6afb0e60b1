package io.gendurable.admin.access;

import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.GenDurableAdmin;
import io.gendurable.admin.InstancesResource;

import jakarta.annotation.security.PermitAll;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Who is calling, at {@code <application path>/gendurable/me}: for the web console, to know
 * whether to show the action controls (the API refuses them to a viewer anyway).
 *
 * <p>It is {@code @PermitAll} and checks the roles itself, so that a call without credentials
 * gets a 401 <em>without</em> a {@code WWW-Authenticate: Basic} challenge: a browser shows its own
 * sign-in prompt on such a challenge, even for a script's {@code fetch}; the console shows its
 * own form instead. A caller with credentials but neither role gets a 403.
 */
@Path(GenDurableAdmin.PATH + "/me")
@RequestScoped
@PermitAll
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gen-durable queues")
@SecurityRequirement(name = InstancesResource.SECURITY)
public class MeResource {
    /** The 401's challenge: a scheme no browser answers with its own prompt. */
    static final String CHALLENGE = "Console realm=\"gendurable\"";

    /**
     * The caller.
     *
     * @param user  the caller's name
     * @param admin whether it holds {@link AdminRoles#ADMIN}
     */
    @Schema(name = "Me")
    public record Me(String user, boolean admin) {
    }

    /**
     * @param security the request's security context
     * @param uri      the request, for the problem's instance
     * @return the caller and whether it is an admin; 401 without credentials, 403 without either role
     */
    @GET
    @Operation(summary = "The caller's name and whether it holds gendurable-admin",
            description = "401 without credentials (with no Basic challenge), 403 for a caller holding neither role")
    @APIResponse(responseCode = "200", description = "the caller",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = Me.class)))
    @APIResponse(responseCode = "401", description = "no credentials",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "neither role",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Response me(@Context SecurityContext security, @Context UriInfo uri) {
        if (security.getUserPrincipal() == null) {
            return problem(401, "Unauthorized", "sign in as a user holding " + AdminRoles.VIEWER + " or "
                    + AdminRoles.ADMIN, uri).header("WWW-Authenticate", CHALLENGE).build();
        }
        boolean admin = security.isUserInRole(AdminRoles.ADMIN);
        if (!admin && !security.isUserInRole(AdminRoles.VIEWER)) {
            return problem(403, "Forbidden", security.getUserPrincipal().getName() + " holds neither "
                    + AdminRoles.VIEWER + " nor " + AdminRoles.ADMIN, uri).build();
        }
        return Response.ok(new Me(security.getUserPrincipal().getName(), admin)).build();
    }

    private static Response.ResponseBuilder problem(int status, String title, String detail, UriInfo uri) {
        return Response.status(status).type(Problem.MEDIA_TYPE)
                .entity(new Problem("urn:gendurable:problem:" + (status == 401 ? "unauthenticated" : "forbidden"),
                        title, status, detail, uri.getRequestUri().getRawPath()));
    }
}
