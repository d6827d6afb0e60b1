package io.gendurable.admin.access;

import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.problems.AdminProblem;
import io.gendurable.admin.GenDurableAdmin;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.SequenceInputStream;
import java.lang.annotation.Annotation;
import java.security.Principal;
import java.util.Locale;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What every request to the admin API (a path under {@value GenDurableAdmin#PATH}) goes through,
 * and nothing else: the application's own resources are left as they are.
 * <ul>
 *   <li>an action (a method other than GET, HEAD, OPTIONS) that a cross-site page could have sent
 *       is answered with a problem and never runs ({@link CrossSiteCheck});</li>
 *   <li>every action, run or refused, leaves one audit record ({@link AdminAudit});</li>
 *   <li>no answer carries a header named after an exception (a server's own error mappers add
 *       them), and an error answer that no resource wrote (no such path, a wrong method) becomes
 *       a problem with a fixed detail;</li>
 *   <li>every answer carries {@code X-Content-Type-Options: nosniff}, and every answer but the
 *       console's files {@code Cache-Control: no-store}.</li>
 * </ul>
 * It runs at {@link Priorities#USER}, after the role checks a JAX-RS runtime makes in its own
 * filters (RESTEasy's on WildFly); on Open Liberty a refused action without credentials gets this
 * problem rather than the server's 401.
 */
@Provider
@Priority(Priorities.USER)
public class AdminFilter implements ContainerRequestFilter, ContainerResponseFilter {
    private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");
    /** The request property holding the start of an action's body. */
    private static final String BODY = AdminFilter.class.getName() + ".body";
    /** How much of an action's body the audit record may see (the resources read it all). */
    private static final int BODY_KEPT = 4 * JsonBody.MAX_LENGTH + 1;

    @Override
    public void filter(ContainerRequestContext request) throws IOException {
        if (!admin(request)) {
            return;
        }
        if (action(request) && request.hasEntity()) {
            // kept for the audit record, and given back to the resource as it came
            byte[] body = request.getEntityStream().readNBytes(BODY_KEPT);
            request.setProperty(BODY, body);
            request.setEntityStream(new SequenceInputStream(new ByteArrayInputStream(body), request.getEntityStream()));
        }
        CrossSiteCheck.refusal(request.getMethod(), request::getHeaderString, request.getUriInfo().getRequestUri())
                .ifPresent(p -> request.abortWith(Response.status(p.status()).type(Problem.MEDIA_TYPE)
                        .entity(p.toJson(request.getUriInfo().getRequestUri().getRawPath())).build()));
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (!admin(request)) {
            return;
        }
        // headers a server adds on its own to an error answer, naming the exception and its
        // message (Open Liberty's MicroProfile Metrics: "io.openliberty….MetricsRestfulWsEMCallbackImpl.Exception")
        response.getHeaders().keySet().removeIf(AdminFilter::leaky);
        MediaType type = response.getMediaType();
        boolean problem = type != null && type.getType().equalsIgnoreCase("application")
                && type.getSubtype().equalsIgnoreCase("problem+json");
        if (response.getStatus() >= 400 && !problem) {
            // an answer of the runtime, not of a resource (no such path, a wrong method…): a
            // problem with a fixed detail instead of whatever page or text it had
            AdminProblem p = AdminProblem.forStatus(response.getStatus(), null);
            if (p.problemId() != null) {
                Logger.getLogger("io.gendurable.admin").log(Level.SEVERE, "gen-durable-admin: problem " + p.problemId()
                        + ": the server answered " + response.getStatus() + " to " + request.getMethod() + " "
                        + request.getUriInfo().getRequestUri().getRawPath());
            }
            response.getHeaders().remove("Content-Length");
            response.setEntity(p.toJson(request.getUriInfo().getRequestUri().getRawPath()), new Annotation[0],
                    MediaType.valueOf(Problem.MEDIA_TYPE));
        }
        response.getHeaders().putSingle("X-Content-Type-Options", "nosniff");
        if (!console(request)) {
            // the console's files have their own policy (revalidated, with an ETag); the API's
            // answers are never kept by a browser or a proxy
            response.getHeaders().putSingle("Cache-Control", "no-store");
        }
        if (action(request)) {
            audit(request, response);
        }
    }

    private static boolean console(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        path = path.startsWith("/") ? path.substring(1) : path;
        return path.startsWith(GenDurableAdmin.PATH + "/console");
    }

    /**
     * @param name a response header's name, or null
     * @return whether it is named after an exception (what a server's exception mapper callbacks add)
     */
    public static boolean leaky(String name) {
        return name != null && name.toLowerCase(Locale.ROOT).contains("exception");
    }

    private static void audit(ContainerRequestContext request, ContainerResponseContext response) {
        try {
            Principal p = request.getSecurityContext() == null ? null : request.getSecurityContext().getUserPrincipal();
            String problem = null;
            if (response.getStatus() >= 400 && response.getEntity() instanceof String s && s.startsWith("{\"type\":\"")) {
                problem = s.substring(9, Math.max(9, s.indexOf('"', 9)));
            }
            Object body = request.getProperty(BODY);
            AdminAudit.log(request.getMethod(), request.getUriInfo().getRequestUri().getRawPath(),
                    request.getUriInfo().getRequestUri().getRawQuery(), p == null ? null : p.getName(), response.getStatus(),
                    problem, body instanceof byte[] bytes ? bytes : null);
        } catch (RuntimeException e) {
            Logger.getLogger(AdminAudit.LOGGER).log(Level.WARNING, "gen-durable-admin: an action could not be audited", e);
        }
    }

    /** @return whether the request is an action (it may change something) */
    private static boolean action(ContainerRequestContext request) {
        return !SAFE.contains(request.getMethod());
    }

    /** @return whether the request is for the admin API */
    static boolean admin(ContainerRequestContext request) {
        String path = request.getUriInfo().getPath();
        if (path == null) {
            return false;
        }
        if (path.startsWith("/")) {
            path = path.substring(1);
        }
        return path.equals(GenDurableAdmin.PATH) || path.startsWith(GenDurableAdmin.PATH + "/");
    }
}
