package io.gendurable.admin.access;

import io.gendurable.admin.requests.Requests;
import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.problems.AdminProblem;
import io.gendurable.admin.GenDurableAdmin;

import jakarta.annotation.security.PermitAll;
import jakarta.enterprise.context.RequestScoped;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.security.Principal;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The web console's sign-in, at {@code <application path>/gendurable/session}, so that the
 * console never holds a password: {@code POST} checks a user name and password against the
 * server's registry ({@link HttpServletRequest#login}), reads which {@link AdminRoles} the user
 * holds, signs the container's identity out again ({@link HttpServletRequest#logout}: no
 * single-sign-on cookie is left, such as Open Liberty's {@code LtpaToken2}) and keeps the user and
 * the roles in the container's HTTP session ({@link ConsoleSession}), under a new session id;
 * {@code DELETE} ends that session. {@link SessionFilter} then signs in each admin request that
 * carries the session's cookie.
 *
 * <p>Both are actions: {@link AdminFilter} refuses them without {@code X-Requested-With} or the
 * server's own {@code Origin}, and a sign-in whose body is not {@code application/json}, so that
 * no page of another site can sign a browser in or out. The session's cookie is the container's
 * ({@code JSESSIONID}): its {@code HttpOnly}, {@code SameSite} and {@code Secure} attributes and
 * the session's lifetime are the server's settings (liberty-config, wildfly-config).
 */
@Path(GenDurableAdmin.PATH + "/session")
@RequestScoped
@PermitAll
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "gen-durable console")
public class SessionResource {
    private static final Logger LOG = Logger.getLogger("io.gendurable.admin");

    /**
     * Signs in: the answer is {@code me}'s, and the container's session cookie comes with it.
     *
     * @param body    {@link Requests.SignIn}
     * @param request the servlet request, to sign in through the container and reach its session
     * @param uri     the request, for a problem's instance
     * @return the user and whether it holds {@link AdminRoles#ADMIN}; 401 for a wrong user name or
     * password, 403 for a user holding neither role (no session is kept for either)
     */
    @POST
    @Operation(summary = "The web console's sign-in",
            description = "Checks the user name and password against the server's registry and keeps the user and "
                    + "its gen-durable roles in the server's HTTP session (its cookie: HttpOnly, SameSite=Strict, and "
                    + "Secure with the shipped server settings). 401 (with no Basic challenge) for a wrong user name or "
                    + "password, 403 for a user holding neither role.")
    @RequestBody(required = true, content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = Requests.SignIn.class)))
    @APIResponse(responseCode = "200", description = "signed in: the caller, as GET me answers it",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = MeResource.Me.class)))
    @APIResponse(responseCode = "401", description = "a wrong user name or password",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    @APIResponse(responseCode = "403", description = "neither role",
            content = @Content(mediaType = Problem.MEDIA_TYPE, schema = @Schema(implementation = Problem.class)))
    public Response signIn(String body, @Context HttpServletRequest request, @Context UriInfo uri) {
        JsonBody b = JsonBody.parse(body, Requests.SignIn.FIELDS);
        String user = b.string("user");
        if (user == null || user.isBlank()) {
            throw JsonBody.missing("user");
        }
        String password = password(b);
        String name;
        Set<String> roles;
        try {
            if (request.getUserPrincipal() != null) {
                // credentials the browser sent on its own (cached Basic ones): the sign-in is for the user named
                request.logout();
            }
            request.login(user, password);
            Principal p = request.getUserPrincipal();
            name = p == null || p.getName() == null || p.getName().isBlank() ? user : p.getName();
            roles = ConsoleSession.adminRoles(request::isUserInRole);
        } catch (ServletException e) {
            LOG.log(Level.FINE, "gen-durable-admin: a console sign-in was refused", e);
            return refusal(401, "wrong user name or password", uri).header("WWW-Authenticate", MeResource.CHALLENGE).build();
        } finally {
            signOutOfTheContainer(request);
        }
        if (roles.isEmpty()) {
            return refusal(403, name + " holds neither " + AdminRoles.VIEWER + " nor " + AdminRoles.ADMIN, uri).build();
        }
        // a new session id, so that an id planted in the browser before the sign-in is worth nothing after it
        if (request.getSession(false) != null) {
            request.changeSessionId();
        }
        HttpSession session = request.getSession(true);
        ConsoleSession signedIn = new ConsoleSession(name, roles);
        signedIn.keepIn(session);
        return Response.ok(new MeResource.Me(name, signedIn.admin())).build();
    }

    /**
     * Signs out: ends the HTTP session that holds a console sign-in (its cookie is refused from
     * then on). A session without one (the application's own) is left as it is.
     *
     * @param request the servlet request, to reach its session
     * @return 204
     */
    @DELETE
    @Operation(summary = "The web console's sign-out",
            description = "Ends the HTTP session holding the console's sign-in; 204 also when there is none")
    @APIResponse(responseCode = "204", description = "signed out")
    public Response signOut(@Context HttpServletRequest request) {
        HttpSession session = request.getSession(false);
        if (ConsoleSession.of(session) != null) {
            try {
                session.invalidate();
            } catch (IllegalStateException alreadyEnded) {
                // ended meanwhile
            }
        }
        return Response.noContent().build();
    }

    private static String password(JsonBody b) {
        JsonValue v = b.value("password").orElse(JsonValue.NULL);
        if (v.getValueType() == JsonValue.ValueType.NULL) {
            throw JsonBody.missing("password");
        }
        if (!(v instanceof JsonString s)) {
            throw AdminProblem.invalidInput("password must be a string");
        }
        if (s.getString().isEmpty()) {
            throw JsonBody.missing("password");
        }
        return s.getString();
    }

    /** The identity login() gave the request is not kept by the container: only the session is. */
    private static void signOutOfTheContainer(HttpServletRequest request) {
        try {
            if (request.getUserPrincipal() != null) {
                request.logout();
            }
        } catch (ServletException | RuntimeException e) {
            LOG.log(Level.WARNING, "gen-durable-admin: the container's sign-out after a console sign-in failed", e);
        }
    }

    /** @return a 401 or 403 problem of the console's sign-in */
    static Response.ResponseBuilder refusal(int status, String detail, UriInfo uri) {
        return Response.status(status).type(Problem.MEDIA_TYPE)
                .entity(new Problem("urn:gendurable:problem:" + (status == 401 ? "unauthenticated" : "forbidden"),
                        status == 401 ? "Unauthorized" : "Forbidden", status, detail, uri.getRequestUri().getRawPath()));
    }
}
