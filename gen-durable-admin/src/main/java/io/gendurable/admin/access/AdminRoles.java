package io.gendurable.admin.access;

/**
 * The two roles of the admin REST API. Reads ({@code GET}) need either role; actions (cancel,
 * retry, reschedule, priority, queue pause and resume, signals) need {@link #ADMIN}.
 *
 * <p>The names are fixed (they are the values of {@code @RolesAllowed}); what is yours is who holds
 * them: map each role to users or groups of your registry in the server's binding (on Open Liberty
 * an {@code <application-bnd>} in {@code server.xml}, or {@code META-INF/ibm-application-bnd.xml}
 * in the EAR), and declare both in the web module's {@code web.xml} with a {@code login-config}.
 */
public final class AdminRoles {
    /** Reads: search, inspect, summary, paused queues. */
    public static final String VIEWER = "gendurable-viewer";

    /** Reads and every action. */
    public static final String ADMIN = "gendurable-admin";

    private AdminRoles() {
    }
}
