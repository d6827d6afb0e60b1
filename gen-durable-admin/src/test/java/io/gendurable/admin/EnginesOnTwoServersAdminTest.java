package io.gendurable.admin;

import io.gendurable.admin.problems.ProblemTranslator;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.problems.AdminProblem;

import io.gendurable.DurableFsm;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.Job;
import io.gendurable.PausedQueue;
import io.gendurable.Status;
import io.gendurable.StepContext;
import io.gendurable.DurableEngine;
import io.gendurable.GenDurable;
import io.gendurable.impl.cdi.GenDurableExtension;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Past one database, through the admin API: the default engine ("orders") on server A (the tests'
 * PostgreSQL, {@code GENDURABLE_TEST_DB_URL}, else an embedded one), a named engine ("billing") on
 * server B (an embedded PostgreSQL started here), one CDI container holding both and the admin
 * resources. Each call is a request of its own: the request context is activated for it and the
 * servlet request {@link EngineChoice} reads carries the call's query parameters, so every call
 * chooses its engine through the same code a real request does. Each engine's rows and operator
 * actions stay on its own server; an unknown engine is a 400 problem before anything is done.
 */
class EnginesOnTwoServersAdminTest {
    private static final String TEST_DB_URL = "GENDURABLE_TEST_DB_URL";
    private static final Set<String> PROPERTIES = new LinkedHashSet<>();

    /** The state of both FSMs. */
    public record Note(String text) {
    }

    /** The default engine's FSM, on its queue {@code checkout}. */
    @ApplicationScoped
    @DurableFsm(name = "admin-order", queue = "checkout")
    public static class Order implements Job<Note> {
        @Override
        public Object perform(Note args, StepContext ctx) {
            return args;
        }
    }

    /** The billing engine's FSM, on its queue {@code invoices}. */
    @ApplicationScoped
    @DurableFsm(name = "admin-invoice", engine = "billing", queue = "invoices")
    public static class Invoice implements Job<Note> {
        @Override
        public Object perform(Note args, StepContext ctx) {
            return args;
        }
    }

    /** Both engines, to insert the rows the admin API then reads. */
    @jakarta.enterprise.context.Dependent
    public static class Both {
        @Inject
        GenDurable orders;

        @Inject
        @DurableEngine("billing")
        GenDurable billing;
    }

    /**
     * The servlet request of the call under way, as the container would inject it into
     * {@link EngineChoice}: only its query parameters and attributes are read.
     */
    public static class CurrentRequest {
        static volatile Map<String, List<String>> query = Map.of();

        @Produces
        HttpServletRequest request() {
            return (HttpServletRequest) Proxy.newProxyInstance(HttpServletRequest.class.getClassLoader(),
                    new Class<?>[]{HttpServletRequest.class}, (proxy, m, args) -> switch (m.getName()) {
                        case "getParameterValues" -> {
                            List<String> v = query.get((String) args[0]);
                            yield v == null ? null : v.toArray(String[]::new);
                        }
                        case "getParameter" -> {
                            List<String> v = query.get((String) args[0]);
                            yield v == null ? null : v.get(0);
                        }
                        case "getAttribute" -> null;
                        case "toString" -> "request " + query;
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }
    }

    private WeldContainer container;

    @Test
    void the_admin_api_reads_and_acts_on_the_engine_each_request_names_each_on_its_own_server() throws Exception {
        String configured = configuredUrl();
        try (EmbeddedPostgres embeddedA = configured == null ? EmbeddedPostgres.builder().start() : null;
             EmbeddedPostgres serverB = EmbeddedPostgres.builder().start()) {
            String urlA = configured != null ? configured : embeddedA.getJdbcUrl("postgres", "postgres");
            String urlB = serverB.getJdbcUrl("postgres", "postgres");
            String schemaA = "gda_" + ProcessHandle.current().pid() + "_two_servers_orders";
            property("gendurable.jdbc.url", urlA);
            property("gendurable.jdbc.user", "postgres");
            property("gendurable.jdbc.password", "postgres");
            property("gendurable.schema", schemaA);
            property("gendurable.queues", "checkout:1");
            property("gendurable.drain-timeout", "PT2S");
            property("gendurable.node-id", "admin-two-servers-orders");
            String p = "gendurable.engines.billing.";
            property("gendurable.engines", "billing");
            property(p + "jdbc.url", urlB);
            property(p + "jdbc.user", "postgres");
            property(p + "jdbc.password", "postgres");
            property(p + "schema", "billing");
            property(p + "queues", "invoices:1");
            property(p + "drain-timeout", "PT2S");
            property(p + "node-id", "admin-two-servers-billing");

            try {
                container = new Weld("gendurable-admin-two-servers-" + UUID.randomUUID()).disableDiscovery()
                        .addExtension(new GenDurableExtension())
                        .addBeanClasses(Order.class, Invoice.class, Both.class, CurrentRequest.class,
                                EngineChoice.class, EnginesResource.class, InstancesResource.class,
                                QueuesResource.class, SummaryResource.class, ProblemTranslator.class)
                        .initialize();
                Both both = container.select(Both.class).get();

                // rows due in an hour: they stay runnable while the admin API reads them
                InsertOptions later = InsertOptions.builder().scheduleIn(Duration.ofHours(1)).build();
                Inserted order1 = both.orders.insert(Order.class, new Note("order 1"), later);
                Inserted order2 = both.orders.insert(Order.class, new Note("order 2"), later);
                Inserted invoice = both.billing.insert(Invoice.class, new Note("invoice 1"), later);
                // forced: the same id on both servers, so an action sent to the wrong server would hit a row
                assertThat(invoice.id()).isEqualTo(order1.id());
                long shared = invoice.id();

                // GET engines: both, the default first
                assertThat(call(Map.of(), () -> container.select(EnginesResource.class).get().engines()).engines())
                        .containsExactly("default", "billing");

                // GET instances: each engine's own rows
                assertThat(search(Map.of("engine", List.of("billing"))))
                        .extracting(Views.Instance::fsm, Views.Instance::id)
                        .containsExactly(org.assertj.core.groups.Tuple.tuple("admin-invoice", shared));
                assertThat(search(Map.of("engine", List.of("default"))))
                        .extracting(Views.Instance::fsm).containsExactly("admin-order", "admin-order");
                assertThat(search(Map.of()))
                        .extracting(Views.Instance::id).containsExactlyInAnyOrder(order1.id(), order2.id());
                assertThat(search(Map.of("engine", List.of("billing"), "queue", List.of("checkout")))).isEmpty();

                // GET instances/{id}: the same id is a different instance on each engine
                assertThat(call(Map.of("engine", List.of("billing")),
                        () -> instances().inspect(Long.toString(shared))).instance().fsm()).isEqualTo("admin-invoice");
                assertThat(call(Map.of(),
                        () -> instances().inspect(Long.toString(shared))).instance().fsm()).isEqualTo("admin-order");
                AdminProblem missing = catchThrowableOfType(() -> call(Map.of("engine", List.of("billing")),
                        () -> instances().inspect(Long.toString(order2.id()))), AdminProblem.class);
                assertThat(missing.status()).isEqualTo(404);
                assertThat(missing.type()).isEqualTo(Problem.TYPE_NO_SUCH_INSTANCE);

                // GET summary: each engine's queues and counts
                Views.Summary billingSummary = call(Map.of("engine", List.of("billing")),
                        () -> container.select(SummaryResource.class).get().summary());
                assertThat(billingSummary.queues()).extracting(Views.Queue::queue).containsExactly("invoices");
                assertThat(billingSummary.queues().get(0).counts().get(Status.RUNNABLE)).isEqualTo(1L);
                Views.Summary ordersSummary = call(Map.of("engine", List.of("default")),
                        () -> container.select(SummaryResource.class).get().summary());
                assertThat(ordersSummary.queues()).extracting(Views.Queue::queue).containsExactly("checkout");
                assertThat(ordersSummary.queues().get(0).counts().get(Status.RUNNABLE)).isEqualTo(2L);

                try (Connection a = DriverManager.getConnection(urlA, "postgres", "postgres");
                     Connection b = DriverManager.getConnection(urlB, "postgres", "postgres")) {
                    // each schema on its own server only
                    assertThat(count(a, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'billing'"))
                            .isZero();
                    assertThat(count(b, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '"
                            + schemaA + "'")).isZero();

                    // PUT queues/invoices/pause on billing: recorded on server B, not on A
                    PausedQueue paused = call(Map.of("engine", List.of("billing")),
                            () -> container.select(QueuesResource.class).get().pause("invoices", "{\"reason\":\"two servers\"}"));
                    assertThat(paused.queue()).isEqualTo("invoices");
                    assertThat(count(b, "SELECT count(*) FROM billing.gen_durable_paused_queues WHERE queue = 'invoices'"))
                            .isEqualTo(1);
                    assertThat(count(a, "SELECT count(*) FROM " + schemaA + ".gen_durable_paused_queues")).isZero();
                    assertThat(call(Map.of("engine", List.of("billing")),
                            () -> container.select(QueuesResource.class).get().paused()))
                            .extracting(PausedQueue::queue).containsExactly("invoices");
                    assertThat(call(Map.of(), () -> container.select(QueuesResource.class).get().paused())).isEmpty();

                    // POST instances/{id}/cancel on billing: the row on server B, not the row of that id on A
                    Views.Cancelled cancelled = call(Map.of("engine", List.of("billing")),
                            () -> instances().cancel(Long.toString(shared), "{\"reason\":\"two servers\"}"));
                    assertThat(cancelled.instance().fsm()).isEqualTo("admin-invoice");
                    assertThat(status(b, "billing", shared)).isEqualTo("cancelled");
                    assertThat(status(a, schemaA, shared)).isEqualTo("runnable");
                    assertThat(count(a, "SELECT count(*) FROM " + schemaA + ".gen_durable WHERE status <> 'runnable'"))
                            .isZero();

                    // an unknown engine: 400 naming the parameter and the engines, nothing done on either server
                    for (Supplier<?> read : List.<Supplier<?>>of(
                            () -> instances().search(uri(CurrentRequest.query)),
                            () -> container.select(SummaryResource.class).get().summary(),
                            () -> instances().cancel(Long.toString(order2.id()), "{}"))) {
                        AdminProblem unknown = catchThrowableOfType(
                                () -> call(Map.of("engine", List.of("nosuch")), read), AdminProblem.class);
                        assertThat(unknown).as("a request naming engine 'nosuch'").isNotNull();
                        assertThat(unknown.status()).isEqualTo(400);
                        assertThat(unknown.type()).isEqualTo(Problem.TYPE_INVALID_INPUT);
                        assertThat(unknown.getMessage())
                                .contains("'engine'", "no engine named 'nosuch'", "[default, billing]");
                        assertThat(unknown.toJson("/gendurable/instances")).contains("\"status\":400");
                    }
                    assertThat(status(a, schemaA, order2.id())).isEqualTo("runnable");
                    assertThat(count(b, "SELECT count(*) FROM billing.gen_durable")).isEqualTo(1);
                } finally {
                    container.shutdown();
                    container = null;
                }
            } finally {
                if (configured != null) {
                    try (Connection a = DriverManager.getConnection(urlA, "postgres", "postgres");
                         Statement s = a.createStatement()) {
                        s.execute("DROP SCHEMA IF EXISTS " + schemaA + " CASCADE");
                    }
                }
            }
        }
    }

    @AfterEach
    void clear() {
        if (container != null && container.isRunning()) {
            container.shutdown();
        }
        PROPERTIES.forEach(System::clearProperty);
        PROPERTIES.clear();
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig());
    }

    private InstancesResource instances() {
        return container.select(InstancesResource.class).get();
    }

    private List<Views.Instance> search(Map<String, List<String>> query) {
        return call(query, () -> instances().search(uri(query))).items();
    }

    /**
     * One request: its own request context (so a new {@link EngineChoice}) with {@code query} as
     * its query parameters.
     */
    private <T> T call(Map<String, List<String>> query, Supplier<T> resourceCall) {
        RequestContextController rc = container.select(RequestContextController.class).get();
        CurrentRequest.query = query;
        assertThat(rc.activate()).as("a request context of its own").isTrue();
        try {
            return resourceCall.get();
        } finally {
            rc.deactivate();
            CurrentRequest.query = Map.of();
        }
    }

    /** @return the URI of a request with these query parameters, as JAX-RS hands it to a resource */
    private static UriInfo uri(Map<String, List<String>> query) {
        MultivaluedMap<String, String> params = new MultivaluedHashMap<>();
        query.forEach((k, v) -> params.put(k, List.copyOf(v)));
        return (UriInfo) Proxy.newProxyInstance(UriInfo.class.getClassLoader(), new Class<?>[]{UriInfo.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "getQueryParameters" -> params;
                    case "toString" -> "uri " + params;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static void property(String key, String value) {
        PROPERTIES.add(key);
        System.setProperty(key, value);
    }

    private static String configuredUrl() {
        String v = System.getenv(TEST_DB_URL);
        if (v == null || v.isBlank()) {
            v = System.getProperty(TEST_DB_URL);
        }
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String status(Connection c, String schema, long id) throws SQLException {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT status FROM " + schema + ".gen_durable WHERE id = " + id)) {
            assertThat(rs.next()).as("row " + id + " in " + schema).isTrue();
            return rs.getString(1);
        }
    }
}
