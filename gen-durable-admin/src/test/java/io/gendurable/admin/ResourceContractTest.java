package io.gendurable.admin;

import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.access.SessionFilter;
import io.gendurable.admin.access.AdminFilter;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;

import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every action of the admin API reads its body (so that {@link JsonBody} refuses anything but one
 * JSON object), and the request filter that refuses cross-site actions is among its classes.
 * Before: run-now, bulk retry, bulk purge and a schedule's trigger ignored whatever body came.
 */
class ResourceContractTest {
    @Test
    void everyPostAndPutReadsItsBody() {
        List<String> without = new ArrayList<>();
        int actions = 0;
        for (Class<?> c : GenDurableAdmin.classes()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(POST.class) || m.isAnnotationPresent(PUT.class)) {
                    actions++;
                    boolean body = false;
                    for (Parameter p : m.getParameters()) {
                        body |= p.getType() == String.class && p.getAnnotations().length == 0;
                    }
                    if (!body) {
                        without.add(c.getSimpleName() + "." + m.getName());
                    }
                }
                if (m.isAnnotationPresent(DELETE.class)) {
                    actions++;
                }
            }
        }
        assertThat(actions).isEqualTo(16);  // the console's sign-in and sign-out among them
        assertThat(without).isEmpty();
        assertThat(GenDurableAdmin.classes()).contains(AdminFilter.class, SessionFilter.class);
    }
}
