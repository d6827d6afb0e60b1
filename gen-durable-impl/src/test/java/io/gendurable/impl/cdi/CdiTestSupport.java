package io.gendurable.impl.cdi;

import io.gendurable.testing.SharedTestDatabase;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

import javax.sql.DataSource;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.UUID;

/**
 * Weld SE boots isolated from each other (no discovery: only the extension and the classes a
 * test names) and the system properties they read, cleared after each test.
 */
final class CdiTestSupport {
    private static final Set<String> PROPERTIES = new LinkedHashSet<>();

    private CdiTestSupport() {
    }

    /** Sets a system property until {@link #clearProperties()}. */
    static void property(String key, String value) {
        PROPERTIES.add(key);
        System.setProperty(key, value);
    }

    /** The three JDBC keys on the tests' database, a fresh schema, and short polls. */
    static void jdbcProperties(String schema) {
        property("gendurable.jdbc.url", SharedTestDatabase.url());
        property("gendurable.jdbc.user", "postgres");
        property("gendurable.jdbc.password", "postgres");
        shortTimings(schema);
    }

    /** A fresh schema and short polls, without any DataSource key. */
    static void shortTimings(String schema) {
        property("gendurable.schema", schema);
        property("gendurable.queues", "default:2");
        property("gendurable.poll-interval", "50");
        property("gendurable.max-poll-interval", "200");
        property("gendurable.drain-timeout", "PT2S");
        property("gendurable.node-id", "cdi-" + schema);
    }

    /** Clears what {@link #property} set and drops the cached MicroProfile Config, so the next boot reads afresh. */
    static void clearProperties() {
        PROPERTIES.forEach(System::clearProperty);
        PROPERTIES.clear();
        ConfigProviderResolver.instance().releaseConfig(ConfigProvider.getConfig());
    }

    /**
     * @return a started container with the extension and {@code beans} only
     * @throws RuntimeException the boot's failure, after shutting down what Weld left running
     */
    static WeldContainer boot(Class<?>... beans) {
        String id = "gendurable-test-" + UUID.randomUUID();
        try {
            return new Weld(id).disableDiscovery().addExtension(new GenDurableExtension()).addBeanClasses(beans)
                    .initialize();
        } catch (RuntimeException e) {
            // a failing @Initialized(ApplicationScoped) observer leaves the container registered
            WeldContainer left = WeldContainer.instance(id);
            if (left != null && left.isRunning()) {
                left.shutdown();
            }
            throw e;
        }
    }

    /** @return whether {@code schema} exists in the tests' database */
    static boolean schemaExists(DataSource ds, String schema) {
        return SharedTestDatabase.queryLong(ds, "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '"
                + schema + "'") > 0;
    }

    /** @return whether a thread this layer names ({@code gendurable-*}) is alive */
    static boolean layerThreadsAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().startsWith("gendurable-"));
    }
}
