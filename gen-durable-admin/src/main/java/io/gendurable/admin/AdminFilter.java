package io.gendurable.admin;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;

/**
 * What every request to the admin API (a path under {@value GenDurableAdmin#PATH}) goes through,
 * and nothing else: the application's own resources are left as they are.
 * <ul>
 *   <li>an action (a method other than GET, HEAD, OPTIONS) that a cross-site page could have sent
 *       is answered with a problem and never runs ({@link CrossSiteCheck});</li>
 * </ul>
 * It runs at {@link Priorities#USER}, after the role checks a JAX-RS runtime makes in its own
 * filters (RESTEasy's on WildFly); on Open Liberty a refused action without credentials gets this
 * problem rather than the server's 401.
 */
@Provider
@Priority(Priorities.USER)
public class AdminFilter implements ContainerRequestFilter, ContainerResponseFilter {

    @Override
    public void filter(ContainerRequestContext request) {
        if (!admin(request)) {
            return;
        }
        CrossSiteCheck.refusal(request.getMethod(), request::getHeaderString, request.getUriInfo().getRequestUri())
                .ifPresent(p -> request.abortWith(Response.status(p.status()).type(Problem.MEDIA_TYPE)
                        .entity(p.toJson(request.getUriInfo().getRequestUri().getRawPath())).build()));
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        // nothing yet
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
