package io.gendurable.admin.console;

import io.gendurable.admin.access.AdminRoles;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.problems.AdminProblem;
import io.gendurable.admin.GenDurableAdmin;

import jakarta.annotation.security.PermitAll;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.CacheControl;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The web console, at {@code <application path>/gendurable/console/}: its static files (HTML,
 * JavaScript, CSS) from this jar, open to everyone ({@code @PermitAll}); every data call the
 * console makes goes to the admin API beside it and needs one of the {@link AdminRoles}.
 *
 * <p>{@code GET console} redirects to {@code console/} (a relative {@code Location}) so that the
 * page's relative API calls ({@code ../summary}) resolve. Files are revalidated on each load ({@code Cache-Control: no-cache}
 * with an {@code ETag}), so a new jar's console is picked up at once.
 */
@Path(GenDurableAdmin.PATH + "/console")
@ApplicationScoped
@PermitAll
@Tag(name = "gen-durable console", description = "The web console's static files")
public class ConsoleResource {
    /** The page's own policy: its files, calls to its own origin, nothing inline, no framing. */
    static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; form-action 'self'; base-uri 'self'; frame-ancestors 'none'";

    private final ConsoleAssets assets = new ConsoleAssets();

    /**
     * @param uri     the request's URI
     * @param request the request, for its preconditions
     * @return index.html, or a redirect to {@code console/}
     */
    @GET
    @Operation(summary = "The web console's page", hidden = true)
    public Response index(@Context UriInfo uri, @Context Request request) {
        if (!uri.getRequestUri().getRawPath().endsWith("/")) {
            // relative to the request (…/gendurable/console → …/gendurable/console/), written as is:
            // an absolute one would be built from the request's Host header, which the client chooses
            return Response.status(Response.Status.SEE_OTHER).header(HttpHeaders.LOCATION, "console/").build();
        }
        return file("index.html", request);
    }

    /**
     * @param name    the file's name
     * @param request the request, for its preconditions
     * @return the file (304 when the client's copy is current), or 404
     */
    @GET
    @Path("{file}")
    @Operation(summary = "A static file of the web console", hidden = true)
    public Response file(@PathParam("file") String name, @Context Request request) {
        ConsoleAssets.Asset asset = assets.find(name).orElse(null);
        if (asset == null) {
            // answered here: a NotFoundException would go to the server's own exception mapper,
            // which may add headers naming it
            AdminProblem p = new AdminProblem(Problem.TYPE_NOT_FOUND, "Not found", 404, "the console has no such file", null, null);
            return Response.status(404).type(Problem.MEDIA_TYPE).entity(p.toJson(null))
                    .header("X-Content-Type-Options", "nosniff").build();
        }
        CacheControl cache = new CacheControl();
        cache.setNoCache(true);
        EntityTag tag = new EntityTag(asset.etag());
        Response.ResponseBuilder notModified = request.evaluatePreconditions(tag);
        Response.ResponseBuilder b = notModified != null ? notModified
                : Response.ok(asset.bytes(), asset.contentType()).tag(tag);
        return b.cacheControl(cache)
                .header("X-Content-Type-Options", "nosniff")
                .header("Content-Security-Policy", CSP)
                .header("Referrer-Policy", "no-referrer")
                .build();
    }

    /**
     * @param name    the name of a module of the console's views, in {@code views/}
     * @param request the request, for its preconditions
     * @return the file (304 when the client's copy is current), or 404
     */
    @GET
    @Path("views/{file}")
    @Operation(summary = "A module of the web console's views", hidden = true)
    public Response view(@PathParam("file") String name, @Context Request request) {
        return file("views/" + name, request);
    }
}
