package io.gendurable.impl.cdi;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.GenDurable;
import io.gendurable.GenDurableDataSource;
import io.gendurable.Inserted;
import io.gendurable.Status;
import io.gendurable.impl.cdi.TestFsms.Count;
import io.gendurable.impl.cdi.TestFsms.Increments;
import io.gendurable.impl.cdi.TestFsms.Tally;
import io.gendurable.testing.SharedTestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static io.gendurable.impl.cdi.CdiTestSupport.boot;
import static io.gendurable.impl.cdi.CdiTestSupport.layerThreadsAlive;
import static io.gendurable.impl.cdi.CdiTestSupport.property;
import static io.gendurable.impl.cdi.CdiTestSupport.schemaExists;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class GenDurableBeanBootTest extends CdiTest {
    /** Produces the application's own DataSource for the engine, counting how often. */
    @ApplicationScoped
    public static class ApplicationDataSource {
        static final AtomicInteger PRODUCED = new AtomicInteger();

        @Produces
        @GenDurableDataSource
        @ApplicationScoped
        DataSource dataSource() {
            PRODUCED.incrementAndGet();
            return SharedTestDatabase.dataSource(10);
        }

        void close(@Disposes @GenDurableDataSource DataSource ds) {
            ((HikariDataSource) ds).close();
        }
    }

    @Test
    void an_injected_gendurable_runs_an_fsm_bean_to_done_from_the_three_jdbc_keys_and_closes_its_pool() {
        String schema = SharedTestDatabase.newSchema("cdi_boot");
        String app = "gd-" + schema;
        CdiTestSupport.jdbcProperties(schema);
        property("gendurable.jdbc.url", SharedTestDatabase.url() + (SharedTestDatabase.url().contains("?") ? "&" : "?")
                + "ApplicationName=" + app);

        try (WeldContainer c = boot(Tally.class, Increments.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            Inserted r = durable.insert(Tally.class, new Count(0));

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> durable.find(r.id()).orElseThrow().status() == Status.DONE);
            assertThat(durable.find(r.id()).orElseThrow().result().as(Count.class)).isEqualTo(new Count(3));
            assertThat(c.select(Increments.class).get().calls()).isEqualTo(3);
            assertThat(connectionsOf(app)).isPositive();
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> connectionsOf(app) == 0 && !layerThreadsAlive());
    }

    @Test
    void the_session_jdbc_url_serves_the_migration_and_the_poke_listener_and_its_pool_closes_with_the_engine() {
        String schema = SharedTestDatabase.newSchema("cdi_session");
        String app = "gd-" + schema;
        String sessionApp = "gds-" + schema;
        String sep = SharedTestDatabase.url().contains("?") ? "&" : "?";
        CdiTestSupport.jdbcProperties(schema);
        property("gendurable.jdbc.url", SharedTestDatabase.url() + sep + "ApplicationName=" + app);
        property("gendurable.session.jdbc.url", SharedTestDatabase.url() + sep + "ApplicationName=" + sessionApp);
        property("gendurable.poke", "postgres");

        try (WeldContainer c = boot(Tally.class, Increments.class)) {
            GenDurable durable = c.select(GenDurable.class).get();  // starts the engine: migrates, listens
            Inserted r = durable.insert(Tally.class, new Count(0));
            await().atMost(Duration.ofSeconds(20)).until(() -> durable.find(r.id()).orElseThrow().status() == Status.DONE);

            await().alias("the poke listener on a connection of the session pool").atMost(Duration.ofSeconds(10))
                    .until(() -> listenersOf(sessionApp) == 1);
            assertThat(listenersOf(app)).as("listeners on the engine's own pool").isZero();
            assertThat(connectionsOf(app)).isPositive();
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> connectionsOf(sessionApp) == 0 && connectionsOf(app) == 0);
    }

    private static long listenersOf(String applicationName) {
        return SharedTestDatabase.queryLong(db, "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                + applicationName + "' AND query LIKE 'LISTEN %'");
    }

    @Test
    void a_gendurable_datasource_bean_is_preferred_over_jdbc_url() {
        String schema = SharedTestDatabase.newSchema("cdi_bean_ds");
        CdiTestSupport.jdbcProperties(schema);
        property("gendurable.jdbc.url", "jdbc:postgresql://127.0.0.1:1/nowhere");  // would fail if used
        ApplicationDataSource.PRODUCED.set(0);

        try (WeldContainer c = boot(Tally.class, Increments.class, ApplicationDataSource.class)) {
            GenDurable durable = c.select(GenDurable.class).get();
            Inserted r = durable.insert(Tally.class, new Count(1));

            await().atMost(Duration.ofSeconds(20))
                    .until(() -> durable.find(r.id()).orElseThrow().status() == Status.DONE);
            assertThat(ApplicationDataSource.PRODUCED).hasValue(1);
            assertThat(schemaExists(db, schema)).isTrue();
        }
    }

    @Test
    void with_no_datasource_bean_jndi_name_or_jdbc_url_boot_fails_listing_the_three_ways() {
        String schema = SharedTestDatabase.newSchema("cdi_no_ds");
        CdiTestSupport.shortTimings(schema);

        assertThatThrownBy(() -> boot(Tally.class, Increments.class).close())
                .hasStackTraceContaining("@GenDurableDataSource")
                .hasStackTraceContaining("gendurable.datasource (default jdbc/gendurable)")
                .hasStackTraceContaining("gendurable.jdbc.url");
        assertThat(schemaExists(db, schema)).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> !layerThreadsAlive());
    }

    private static long connectionsOf(String applicationName) {
        return SharedTestDatabase.queryLong(db, "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"
                + applicationName + "'");
    }
}
