package io.gendurable.impl.cdi;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.DurableEngine;
import io.gendurable.DurableFsm;
import io.gendurable.DurableOperations;
import io.gendurable.GenDurable;
import io.gendurable.Inserted;
import io.gendurable.Job;
import io.gendurable.StepContext;
import io.gendurable.impl.cdi.TestFsms.Count;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.testing.SharedTestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static io.gendurable.impl.cdi.CdiTestSupport.layerThreadsAlive;
import static io.gendurable.impl.cdi.CdiTestSupport.property;
import static io.gendurable.impl.cdi.CdiTestSupport.schemaExists;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Several named engines in one container: each its own schema or database, FSMs and work. */
class NamedEnginesTest extends CdiTest {

    /** Runs on the billing engine only: multiplies by ten. */
    @ApplicationScoped
    @DurableFsm(name = "charge", engine = "billing")
    public static class Charge implements Job<Count> {
        @Override
        public Object perform(Count args, StepContext ctx) {
            return new Count(args.n() * 10);
        }
    }

    /** Claims the name of {@link Tally} on the billing engine: names are per engine. */
    @ApplicationScoped
    @DurableFsm(name = "cdi-tally", engine = "billing")
    public static class BillingTally implements Job<Count> {
        @Override
        public Object perform(Count args, StepContext ctx) {
            return new Count(-1);
        }
    }

    /** Names an engine no configuration declares. */
    @ApplicationScoped
    @DurableFsm(name = "orphan", engine = "nowhere")
    public static class Orphan implements Job<Count> {
        @Override
        public Object perform(Count args, StepContext ctx) {
            return null;
        }
    }

    /** An application bean injecting both engines by qualifier (dependent: the test reads its fields). */
    @jakarta.enterprise.context.Dependent
    public static class Accounts {
        @Inject
        GenDurable orders;

        @Inject
        @DurableEngine("billing")
        GenDurable billing;

        @Inject
        @DurableEngine("billing")
        DurableOperations billingOperations;

        @Inject
        @DurableEngine("default")
        DurableOperations defaultOperations;
    }

    @Test
    void two_engines_on_two_schemas_run_their_own_fsms_and_their_work_never_mixes() {
        String orders = SharedTestDatabase.newSchema("eng_orders");
        String billing = SharedTestDatabase.newSchema("eng_billing");
        CdiTestSupport.jdbcProperties(orders);
        billingProperties(billing, SharedTestDatabase.url());

        try (WeldContainer c = boot(Tally.class, Increments.class, Charge.class, BillingTally.class, Accounts.class)) {
            Accounts a = c.select(Accounts.class).get();
            Inserted tally = a.orders.insert(Tally.class, new Count(0));
            Inserted charge = a.billing.insert(Charge.class, new Count(7));
            Inserted billingTally = a.billing.insert(BillingTally.class, new Count(0));

            await().atMost(Duration.ofSeconds(20)).until(() -> a.orders.find(tally.id()).orElseThrow().status().name().equals("DONE")
                    && a.billing.find(charge.id()).orElseThrow().status().name().equals("DONE")
                    && a.billing.find(billingTally.id()).orElseThrow().status().name().equals("DONE"));
            assertThat(a.orders.find(tally.id()).orElseThrow().result().as(Count.class)).isEqualTo(new Count(3));
            assertThat(a.billing.find(charge.id()).orElseThrow().result().as(Count.class)).isEqualTo(new Count(70));
            // the same FSM name ran the billing engine's bean, not the default engine's
            assertThat(a.billing.find(billingTally.id()).orElseThrow().result().as(Count.class)).isEqualTo(new Count(-1));

            assertThat(fsmsIn(orders)).isEqualTo("cdi-tally");
            assertThat(fsmsIn(billing)).isEqualTo("cdi-tally,charge");
            assertThat(a.defaultOperations.summary().queues()).isNotNull();
            assertThat(a.billingOperations.search(io.gendurable.InstanceQuery.builder().fsm("charge").build()).items())
                    .extracting(s -> s.id()).containsExactly(charge.id());
            assertThat(a.defaultOperations.search(io.gendurable.InstanceQuery.builder().fsm("charge").build()).items()).isEmpty();

            // the default engine does not know the billing engine's FSMs
            assertThatThrownBy(() -> a.orders.insert(Charge.class, new Count(1))).hasMessageContaining("charge");
            assertThat(c.select(GenDurable.class, DurableEngineLiteral.of("default")).get().find(tally.id())).isPresent();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !layerThreadsAlive());
    }

    @Test
    void a_named_engine_on_a_second_database_creates_its_tables_there_only() {
        String database = SharedTestDatabase.newSchema("eng_db");
        SharedTestDatabase.exec(db, "CREATE DATABASE " + database);
        String secondUrl = SharedTestDatabase.url().replaceFirst("/[^/?]+(\\?|$)", "/" + database + "$1");
        try {
            String orders = SharedTestDatabase.newSchema("eng_orders");
            CdiTestSupport.jdbcProperties(orders);
            billingProperties("billing", secondUrl);

            try (WeldContainer c = boot(Tally.class, Increments.class, Charge.class, BillingTally.class, Accounts.class)) {
                Accounts a = c.select(Accounts.class).get();
                Inserted charge = a.billing.insert(Charge.class, new Count(2));
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> a.billing.find(charge.id()).orElseThrow().status().name().equals("DONE"));
                assertThat(schemaExists(db, orders)).isTrue();
                assertThat(schemaExists(db, "billing")).isFalse();
                try (HikariDataSource second = pool(secondUrl)) {
                    assertThat(schemaExists(second, "billing")).isTrue();
                    assertThat(SharedTestDatabase.queryLong(second, "SELECT count(*) FROM billing.gen_durable")).isEqualTo(1);
                }
            }
        } finally {
            await().atMost(Duration.ofSeconds(10)).until(() -> !layerThreadsAlive());
            SharedTestDatabase.exec(db, "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    /**
     * Two engines that resolve to one schema on one DataSource (issue 44, item 3): they used to
     * deploy, then claim each other's rows (failing those of FSMs they do not have: "no FSM
     * registered as …") and share one node id, so one's beacon stop deleted the other's node row.
     * Now the deployment fails naming both engines and the shared schema, before any start.
     */
    @Test
    void two_engines_on_one_schema_of_one_data_source_fail_the_deployment_naming_both() {
        String shared = SharedTestDatabase.newSchema("eng_shared");
        CdiTestSupport.jdbcProperties(shared);
        billingProperties(shared, SharedTestDatabase.url());
        assertThatThrownBy(() -> boot(Tally.class, Increments.class, Charge.class, BillingTally.class, Accounts.class).close())
                .hasStackTraceContaining("gen-durable engines default and billing both use schema " + shared)
                .hasStackTraceContaining("gendurable.engines.billing.schema");
        assertThat(CdiTestSupport.schemaExists(db, shared)).as("nothing migrated").isFalse();
    }

    @Test
    void an_fsm_naming_an_engine_that_does_not_exist_fails_the_deployment_naming_both() {
        CdiTestSupport.jdbcProperties(SharedTestDatabase.newSchema("eng_orphan"));
        property("gendurable.engines", "billing");
        assertThatThrownBy(() -> boot(Orphan.class).close())
                .hasStackTraceContaining(Orphan.class.getName())
                .hasStackTraceContaining("names engine nowhere, which does not exist; engines: default, billing");
    }

    @Test
    void a_duplicate_engine_name_or_a_key_of_an_unlisted_engine_fails_the_deployment() {
        CdiTestSupport.jdbcProperties(SharedTestDatabase.newSchema("eng_dup"));
        property("gendurable.engines", "billing,billing");
        assertThatThrownBy(() -> boot(Tally.class, Increments.class).close())
                .hasStackTraceContaining("gendurable.engines=billing,billing")
                .hasStackTraceContaining("billing is listed twice");

        property("gendurable.engines", "billing,default");
        assertThatThrownBy(() -> boot(Tally.class, Increments.class).close())
                .hasStackTraceContaining("names other than default");

        property("gendurable.engines", "billing");
        property("gendurable.engines.biling.schema", "x");
        assertThatThrownBy(() -> boot(Tally.class, Increments.class).close())
                .hasStackTraceContaining("gendurable.engines.biling.schema: no engine biling in gendurable.engines; engines: default, billing");
    }

    @Test
    void a_bad_key_of_a_named_engine_is_named_under_its_namespace() {
        CdiTestSupport.jdbcProperties(SharedTestDatabase.newSchema("eng_bad"));
        property("gendurable.engines", "billing");
        property("gendurable.engines.billing.poll-interval", "soon");
        assertThatThrownBy(() -> boot(Tally.class, Increments.class).close())
                .hasStackTraceContaining("gendurable.engines.billing.poll-interval");
        assertThat(layerThreadsAlive()).isFalse();
    }

    @Test
    void a_named_engine_without_a_datasource_fails_naming_its_namespace() {
        CdiTestSupport.jdbcProperties(SharedTestDatabase.newSchema("eng_nods"));
        property("gendurable.engines", "billing");
        property("gendurable.engines.billing.schema", SharedTestDatabase.newSchema("eng_nods_billing"));
        assertThatThrownBy(() -> boot(Tally.class, Increments.class).close())
                .hasStackTraceContaining("gen-durable engine billing (its keys are read under gendurable.engines.billing.)")
                .hasStackTraceContaining("gen-durable has no DataSource");
        await().atMost(Duration.ofSeconds(10)).until(() -> !layerThreadsAlive());
    }

    private static void billingProperties(String schema, String url) {
        String p = "gendurable.engines.billing.";
        property("gendurable.engines", "billing");
        property(p + "jdbc.url", url);
        property(p + "jdbc.user", "postgres");
        property(p + "jdbc.password", "postgres");
        property(p + "schema", schema);
        property(p + "queues", "default:2");
        property(p + "poll-interval", "50");
        property(p + "max-poll-interval", "200");
        property(p + "drain-timeout", "PT2S");
        property(p + "node-id", "cdi-billing-" + schema);
    }

    private static String fsmsIn(String schema) {
        try (var conn = db.getConnection(); var s = conn.createStatement();
             var rs = s.executeQuery("SELECT string_agg(DISTINCT fsm, ',' ORDER BY fsm) FROM " + schema + ".gen_durable")) {
            rs.next();
            return rs.getString(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static HikariDataSource pool(String url) {
        com.zaxxer.hikari.HikariConfig c = new com.zaxxer.hikari.HikariConfig();
        c.setJdbcUrl(url);
        if (!url.contains("user=")) {
            c.setUsername("postgres");
        }
        c.setMaximumPoolSize(1);
        return new HikariDataSource(c);
    }
}
