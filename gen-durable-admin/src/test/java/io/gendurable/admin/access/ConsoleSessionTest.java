package io.gendurable.admin.access;

import io.gendurable.admin.console.ConsoleResource;
import io.gendurable.admin.InstancesResource;
import io.gendurable.admin.SummaryResource;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The console's sign-in as the HTTP session keeps it ({@link ConsoleSession}), the roles each
 * resource method allows as {@link SessionFilter} reads them, and the sign-in in the audit record. The container side (the session's cookie, the role checks of Open Liberty and
 * RESTEasy honouring the session's identity) is tested in the sample's server suites.
 */
class ConsoleSessionTest {

    @Test
    void theSessionKeepsTheUserAndTheAdminRolesOnlyInPlainAttributes() {
        ConsoleSession s = new ConsoleSession("ops", Set.of(AdminRoles.ADMIN, AdminRoles.VIEWER));
        java.util.Map<String, Object> attributes = new java.util.HashMap<>();
        // what keepIn writes: plain strings, nothing else (no password, no class of this jar)
        attributes.put(ConsoleSession.USER, s.user());
        attributes.put(ConsoleSession.ROLES, String.join(",", s.roles().stream().sorted().toList()));
        assertThat(attributes.values()).allMatch(v -> v instanceof String);
        ConsoleSession back = ConsoleSession.of(attributes.get(ConsoleSession.USER), attributes.get(ConsoleSession.ROLES));
        assertThat(back).isEqualTo(s);
        assertThat(back.admin()).isTrue();

        // a role that is none of the two is never granted; nothing, or something else, is no sign-in
        ConsoleSession viewer = ConsoleSession.of("v", AdminRoles.VIEWER + ",root," + AdminRoles.ADMIN + "x");
        assertThat(viewer.roles()).containsExactly(AdminRoles.VIEWER);
        assertThat(viewer.admin()).isFalse();
        assertThat(ConsoleSession.of("v", "root")).isNull();
        assertThat(ConsoleSession.of(null, AdminRoles.ADMIN)).isNull();
        assertThat(ConsoleSession.of(" ", AdminRoles.ADMIN)).isNull();
        assertThat(ConsoleSession.of("v", Set.of(AdminRoles.ADMIN))).isNull();
        assertThat(ConsoleSession.of(null)).isNull();
    }

    @Test
    void itsSecurityContextHoldsTheKeptRolesAndNoOther() {
        var viewer = new ConsoleSession("v", Set.of(AdminRoles.VIEWER)).securityContext(true);
        assertThat(viewer.getUserPrincipal().getName()).isEqualTo("v");
        assertThat(viewer.isUserInRole(AdminRoles.VIEWER)).isTrue();
        assertThat(viewer.isUserInRole(AdminRoles.ADMIN)).isFalse();
        assertThat(viewer.isUserInRole("anything")).isFalse();
        assertThat(viewer.isSecure()).isTrue();
        assertThat(new ConsoleSession("a", Set.of(AdminRoles.ADMIN)).securityContext(false).isUserInRole(AdminRoles.ADMIN)).isTrue();
        assertThat(ConsoleSession.adminRoles(r -> r.equals(AdminRoles.ADMIN))).containsExactly(AdminRoles.ADMIN);
        assertThat(ConsoleSession.adminRoles(r -> false)).isEmpty();
    }

    @Test
    void theRolesEachResourceMethodAllowsAreReadAsTheContainerReadsThem() throws Exception {
        // the method's own annotation wins over its class's
        assertThat(SessionFilter.rolesAllowed(method(InstancesResource.class, "search"), InstancesResource.class))
                .containsExactlyInAnyOrder(AdminRoles.VIEWER, AdminRoles.ADMIN);
        assertThat(SessionFilter.rolesAllowed(method(InstancesResource.class, "cancelAll"), InstancesResource.class))
                .containsExactly(AdminRoles.ADMIN);
        assertThat(SessionFilter.rolesAllowed(method(SummaryResource.class, "summary"), SummaryResource.class))
                .containsExactlyInAnyOrder(AdminRoles.VIEWER, AdminRoles.ADMIN);
        // a CDI proxy's class: its superclass carries the annotation
        class Proxy extends InstancesResource {
        }
        assertThat(SessionFilter.rolesAllowed(method(InstancesResource.class, "cancelAll"), Proxy.class))
                .containsExactly(AdminRoles.ADMIN);
        assertThat(SessionFilter.rolesAllowed(null, Proxy.class)).containsExactly(AdminRoles.ADMIN);
        // open to everyone: me, the sign-in, the console's files
        assertThat(SessionFilter.rolesAllowed(method(MeResource.class, "me"), MeResource.class)).isNull();
        assertThat(SessionFilter.rolesAllowed(method(SessionResource.class, "signIn"), SessionResource.class)).isNull();
        assertThat(SessionFilter.rolesAllowed(method(SessionResource.class, "signOut"), SessionResource.class)).isNull();
        assertThat(SessionFilter.rolesAllowed(method(ConsoleResource.class, "file"), ConsoleResource.class)).isNull();
        assertThat(SessionFilter.rolesAllowed(null, Object.class)).isNull();
    }

    @Test
    void aSignInsPasswordIsNeverInTheAuditRecord() {
        JsonObject r = AdminAudit.record("POST", "/app/api/gendurable/session", null, null, 401,
                "urn:gendurable:problem:unauthenticated",
                "{\"user\":\"admin\",\"password\":\"s3cret-pw\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(r.getJsonObject("fields").getString("user")).isEqualTo("admin");
        assertThat(r.getJsonObject("fields").getString("password")).isEqualTo("(given)");
        assertThat(r.toString()).doesNotContain("s3cret-pw");
    }

    private static Method method(Class<?> type, String name) {
        for (Method m : type.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError("no method " + name + " in " + type);
    }
}
