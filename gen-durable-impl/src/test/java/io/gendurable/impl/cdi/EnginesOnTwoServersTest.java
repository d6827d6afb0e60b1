package io.gendurable.impl.cdi;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.DurableEngine;
import io.gendurable.DurableFsm;
import io.gendurable.DurableOperations;
import io.gendurable.GenDurable;
import io.gendurable.Inserted;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceSnapshot;
import io.gendurable.Job;
import io.gendurable.StepContext;
import io.gendurable.impl.cdi.TestFsms.Count;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.testing.SharedTestDatabase;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static io.gendurable.impl.cdi.CdiTestSupport.layerThreadsAlive;
import static io.gendurable.impl.cdi.CdiTestSupport.property;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Past one database, today's path: the default engine on the tests' server, a named engine on a
 * second PostgreSQL server (an embedded one started here), the queues split between them, one
 * container. The operations API of each engine reads and acts on its own server only.
 */
class EnginesOnTwoServersTest extends CdiTest {

    /** Runs on the billing engine's queue {@code invoices} only. */
    @ApplicationScoped
    @DurableFsm(name = "invoice", engine = "billing", queue = "invoices")
    public static class Invoice implements Job<Count> {
        @Override
        public Object perform(Count args, StepContext ctx) {
            return new Count(args.n() * 10);
        }
    }

    /** Injects both engines and their operations. */
    @jakarta.enterprise.context.Dependent
    public static class Both {
        @Inject
        GenDurable orders;

        @Inject
        @DurableEngine("billing")
        GenDurable billing;

        @Inject
        DurableOperations ordersOperations;

        @Inject
        @DurableEngine("billing")
        DurableOperations billingOperations;
    }

    @Test
    void two_engines_on_two_servers_keep_their_rows_and_operator_actions_on_their_own_server() throws Exception {
        try (EmbeddedPostgres second = EmbeddedPostgres.builder().start()) {
            String secondUrl = second.getJdbcUrl("postgres", "postgres");
            String orders = SharedTestDatabase.newSchema("two_srv_orders");
            CdiTestSupport.jdbcProperties(orders);
            String p = "gendurable.engines.billing.";
            property("gendurable.engines", "billing");
            property(p + "jdbc.url", secondUrl);
            property(p + "jdbc.user", "postgres");
            property(p + "jdbc.password", "postgres");
            property(p + "schema", "billing");
            property(p + "queues", "invoices:2");
            property(p + "poll-interval", "50");
            property(p + "max-poll-interval", "200");
            property(p + "drain-timeout", "PT2S");
            property(p + "node-id", "two-servers-billing");

            try (WeldContainer c = boot(Tally.class, Increments.class, Invoice.class, Both.class);
                 HikariDataSource b = pool(secondUrl)) {
                Both both = c.select(Both.class).get();

                // work on each server runs there
                Inserted tally = both.orders.insert(Tally.class, new Count(1));
                Inserted invoice = both.billing.insert(Invoice.class, new Count(2));
                await().atMost(Duration.ofSeconds(20)).until(() ->
                        both.orders.find(tally.id()).orElseThrow().status().name().equals("DONE")
                                && both.billing.find(invoice.id()).orElseThrow().status().name().equals("DONE"));
                assertThat(SharedTestDatabase.queryLong(b,
                        "SELECT count(*) FROM billing.gen_durable WHERE fsm = 'invoice' AND queue = 'invoices'")).isEqualTo(1);
                assertThat(SharedTestDatabase.queryLong(db,
                        "SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'billing'")).isZero();
                assertThat(SharedTestDatabase.queryLong(b,
                        "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '" + orders + "'")).isZero();
                assertThat(SharedTestDatabase.queryLong(db,
                        "SELECT count(*) FROM " + orders + ".gen_durable WHERE fsm = 'invoice'")).isZero();

                // listing through each engine's operations sees its own server's rows only
                assertThat(both.billingOperations.search(InstanceQuery.all()).items())
                        .extracting(InstanceSnapshot::fsm).containsExactly("invoice");
                assertThat(both.ordersOperations.search(InstanceQuery.all()).items())
                        .extracting(InstanceSnapshot::fsm).containsOnly("cdi-tally");

                // an operator action on billing: pause its queue, then cancel a waiting instance there
                both.billingOperations.pauseQueue("invoices", "two servers test");
                assertThat(SharedTestDatabase.queryLong(b,
                        "SELECT count(*) FROM billing.gen_durable_paused_queues WHERE queue = 'invoices'")).isEqualTo(1);
                assertThat(SharedTestDatabase.queryLong(db,
                        "SELECT count(*) FROM " + orders + ".gen_durable_paused_queues")).isZero();
                Inserted waiting = both.billing.insert(Invoice.class, new Count(3));
                assertThat(both.billingOperations.inspect(waiting.id())).isPresent();
                both.billingOperations.cancel(waiting.id(), "two servers test");
                assertThat(SharedTestDatabase.queryLong(b,
                        "SELECT count(*) FROM billing.gen_durable WHERE id = " + waiting.id() + " AND status = 'cancelled'"))
                        .isEqualTo(1);
                assertThat(SharedTestDatabase.queryLong(db,
                        "SELECT count(*) FROM " + orders + ".gen_durable WHERE status = 'cancelled'")).isZero();
            }
        } finally {
            await().atMost(Duration.ofSeconds(10)).until(() -> !layerThreadsAlive());
        }
    }

    private static HikariDataSource pool(String url) {
        com.zaxxer.hikari.HikariConfig c = new com.zaxxer.hikari.HikariConfig();
        c.setJdbcUrl(url);
        c.setMaximumPoolSize(1);
        return new HikariDataSource(c);
    }
}
