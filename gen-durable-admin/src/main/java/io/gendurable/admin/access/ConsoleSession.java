package io.gendurable.admin.access;

import io.gendurable.admin.EngineChoice;

import jakarta.servlet.http.HttpSession;
import jakarta.ws.rs.core.SecurityContext;

import java.security.Principal;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Who signed in to the console ({@link SessionResource}), as the container's HTTP session keeps
 * it: the user's name and the admin roles the user held at the sign-in, in two attributes of plain
 * JDK types (a session a server persists or replicates needs none of this jar's classes). The
 * session holds no password and no credential of any kind; its cookie is the container's
 * ({@code JSESSIONID}, with the server's cookie settings).
 *
 * @param user  the user's name, as the container's registry gave it
 * @param roles the {@link AdminRoles} the user held, not empty
 */
public record ConsoleSession(String user, Set<String> roles) {
    /** The session attribute holding the user's name. */
    static final String USER = "io.gendurable.admin.console.user";
    /** The session attribute holding the roles, comma-separated. */
    static final String ROLES = "io.gendurable.admin.console.roles";
    /**
     * The request attribute naming the operator of a request signed in by a console session, for
     * {@link EngineChoice} (the container knows no principal for it).
     */
    public static final String OPERATOR = "io.gendurable.admin.console.operator";

    /**
     * The roles are copied: a session's roles never change.
     *
     * @param user  the user's name
     * @param roles the roles the user held
     */
    public ConsoleSession {
        roles = Set.copyOf(roles);
    }

    /**
     * @param session the request's session, or null
     * @return the console's sign-in it holds, or null when it holds none (or holds something else
     * under those names)
     */
    static ConsoleSession of(HttpSession session) {
        if (session == null) {
            return null;
        }
        try {
            return of(session.getAttribute(USER), session.getAttribute(ROLES));
        } catch (IllegalStateException invalidated) {
            return null;
        }
    }

    /** @return the sign-in those two attribute values describe, or null when they describe none */
    static ConsoleSession of(Object user, Object roles) {
        if (!(user instanceof String name) || name.isBlank() || !(roles instanceof String list)) {
            return null;
        }
        Set<String> held = new LinkedHashSet<>();
        for (String r : list.split(",")) {
            if (r.equals(AdminRoles.VIEWER) || r.equals(AdminRoles.ADMIN)) {
                held.add(r);
            }
        }
        return held.isEmpty() ? null : new ConsoleSession(name, held);
    }

    /** Keeps this sign-in in the session. */
    void keepIn(HttpSession session) {
        session.setAttribute(USER, user);
        session.setAttribute(ROLES, String.join(",", roles.stream().sorted().toList()));
    }

    /** @return whether the user holds {@link AdminRoles#ADMIN} */
    boolean admin() {
        return roles.contains(AdminRoles.ADMIN);
    }

    /**
     * @param secure whether the request came over HTTPS
     * @return the request's security context for this sign-in: its principal is the user, its
     * roles the ones kept (and no other)
     */
    SecurityContext securityContext(boolean secure) {
        Principal principal = new Principal() {
            @Override
            public String getName() {
                return user;
            }

            @Override
            public String toString() {
                return user;
            }
        };
        return new SecurityContext() {
            @Override
            public Principal getUserPrincipal() {
                return principal;
            }

            @Override
            public boolean isUserInRole(String role) {
                return roles.contains(role);
            }

            @Override
            public boolean isSecure() {
                return secure;
            }

            @Override
            public String getAuthenticationScheme() {
                return SecurityContext.FORM_AUTH;
            }
        };
    }

    /** @return the roles among {@link AdminRoles} that a check says the user holds */
    static Set<String> adminRoles(java.util.function.Predicate<String> holds) {
        Set<String> out = new LinkedHashSet<>();
        for (String r : Arrays.asList(AdminRoles.VIEWER, AdminRoles.ADMIN)) {
            if (holds.test(r)) {
                out.add(r);
            }
        }
        return out;
    }
}
