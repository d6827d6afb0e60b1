package io.gendurable.admin;

import io.gendurable.admin.problems.ProblemMapper;
import io.gendurable.admin.console.ConsoleResource;
import io.gendurable.admin.access.SessionFilter;
import io.gendurable.admin.access.AdminFilter;
import io.gendurable.admin.access.SessionResource;
import io.gendurable.admin.access.MeResource;

import java.util.Set;

/**
 * The admin REST API's entry point for an application that lists its JAX-RS classes.
 *
 * <p>Most applications need nothing: a JAX-RS {@code Application} whose {@code getClasses()} and
 * {@code getSingletons()} are empty picks up every {@code @Path} and {@code @Provider} class of
 * the web module, {@code WEB-INF/lib} jars included, so adding this jar to the WAR is enough. The
 * resources are then served under {@code <context root>/<application path>/}{@value #PATH}. An
 * application that returns its own classes from {@code getClasses()} adds {@link #classes()}.
 *
 * <p>The jar is a bean archive ({@code META-INF/beans.xml}, annotated discovery): the resources
 * are {@code @RequestScoped} CDI beans into which the application's {@code DurableOperations} and
 * {@code GenDurable} are injected. It must therefore sit in the same module as the engine
 * ({@code WEB-INF/lib} beside {@code gen-durable-impl}).
 */
public final class GenDurableAdmin {
    /** The path of every admin resource, relative to the application's path. */
    public static final String PATH = "gendurable";

    private GenDurableAdmin() {
    }

    /** @return the JAX-RS classes of the admin API: its resources (the web console's and its sign-in included), its problem mapper and its request filters */
    public static Set<Class<?>> classes() {
        return Set.of(InstancesResource.class, QueuesResource.class, SummaryResource.class, SignalsResource.class,
                SchedulesResource.class, NodesResource.class, EnginesResource.class, MeResource.class, ConsoleResource.class,
                SessionResource.class, ProblemMapper.class, AdminFilter.class, SessionFilter.class);
    }
}
