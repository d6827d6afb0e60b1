package io.gendurable.admin.access;

import io.gendurable.admin.EngineChoice;
import io.gendurable.admin.GenDurableAdmin;

import jakarta.annotation.Priority;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.ext.Provider;

import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Signs in an admin request (a path under {@value GenDurableAdmin#PATH}, nothing else) that
 * carries the HTTP session of a console sign-in ({@link SessionResource}) and no identity of the
 * container's: its {@link SecurityContext} becomes the session's user with the roles kept, which
 * the JAX-RS runtime's {@code @RolesAllowed} check reads (Open Liberty's and RESTEasy's run after
 * this filter, at {@link Priorities#AUTHORIZATION}); the engine records the user as the operator
 * of its actions ({@link EngineChoice}). An identity the container has for the request (Basic
 * credentials, the application's own sign-in) wins over the session. A session user calling a
 * method whose roles it does not hold is refused here with a 403, as the container refuses its own
 * users (Open Liberty's check would look for a principal of its own and answer 401).
 *
 * <p>A call of the console (it carries {@code X-Requested-With}) that has neither, to a resource
 * that needs a role, is answered here with a 401 whose challenge no browser answers with a
 * prompt of its own (as {@code me}'s): Open Liberty would challenge with Basic, and the
 * browser's prompt would pop up over the console when its session has ended.
 */
@Provider
@Priority(Priorities.AUTHENTICATION)
public class SessionFilter implements ContainerRequestFilter {
    @Context
    HttpServletRequest servlet;

    @Context
    ResourceInfo resource;

    @Override
    public void filter(ContainerRequestContext request) {
        if (!AdminFilter.admin(request)) {
            return;
        }
        SecurityContext container = request.getSecurityContext();
        if (container != null && container.getUserPrincipal() != null) {
            return;
        }
        ConsoleSession signedIn = ConsoleSession.of(servlet.getSession(false));
        Method method = resource.getResourceMethod();
        Class<?> type = resource.getResourceClass();
        if (signedIn != null) {
            String[] allowed = rolesAllowed(method, type);
            if (allowed != null && Arrays.stream(allowed).noneMatch(signedIn.roles()::contains)) {
                // refused here, as the container refuses a signed-in user without the role: Open
                // Liberty's check, finding no principal of its own, would answer 401 instead of 403
                request.abortWith(SessionResource.refusal(403, signedIn.user() + " does not hold "
                        + String.join(" or ", allowed), request.getUriInfo()).build());
                return;
            }
            request.setSecurityContext(signedIn.securityContext(container != null && container.isSecure()));
            servlet.setAttribute(ConsoleSession.OPERATOR, signedIn.user());
            return;
        }
        if (request.getHeaderString(CrossSiteCheck.REQUESTED_WITH) != null && request.getHeaderString("Authorization") == null
                && rolesAllowed(method, type) != null) {
            request.abortWith(SessionResource.refusal(401, "sign in as a user holding " + AdminRoles.VIEWER + " or "
                            + AdminRoles.ADMIN + " (the console's session has ended, or there was none)", request.getUriInfo())
                    .header("WWW-Authenticate", MeResource.CHALLENGE).build());
        }
    }

    /**
     * @return the roles the resource method allows ({@code @RolesAllowed} on it, else on its class or
     * a superclass, a CDI proxy's), or null when it needs none ({@code @PermitAll} closer, or nothing)
     */
    static String[] rolesAllowed(Method method, Class<?> type) {
        if (method != null) {
            if (method.isAnnotationPresent(PermitAll.class)) {
                return null;
            }
            if (method.isAnnotationPresent(RolesAllowed.class)) {
                return method.getAnnotation(RolesAllowed.class).value();
            }
        }
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            if (c.isAnnotationPresent(PermitAll.class)) {
                return null;
            }
            if (c.isAnnotationPresent(RolesAllowed.class)) {
                return c.getAnnotation(RolesAllowed.class).value();
            }
        }
        return null;
    }
}
