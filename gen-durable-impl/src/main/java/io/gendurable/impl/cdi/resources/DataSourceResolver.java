package io.gendurable.impl.cdi.resources;

import io.gendurable.GenDurableDataSource;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.ConfigReader;
import io.gendurable.impl.config.EngineConfig;
import jakarta.enterprise.inject.Instance;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Finds the engine's DataSource, first that works: a CDI bean qualified
 * {@link GenDurableDataSource}; the JNDI name in {@code gendurable.datasource} (default
 * {@code jdbc/gendurable}); a HikariCP pool built from {@code gendurable.jdbc.url},
 * {@code .user} and {@code .password}. When none works the message lists all three ways and
 * what was tried.
 *
 * @param reader the {@code gendurable.*} keys
 * @param config the validated engine configuration (sizes the pool)
 * @param jndi   JNDI, or a stand-in
 */
public record DataSourceResolver(ConfigReader reader, EngineConfig config, JndiLookup jndi) {
    /** The JNDI name tried when {@code gendurable.datasource} is unset. */
    public static final String DEFAULT_JNDI_NAME = ConfigKeys.DATASOURCE.defaultValue();

    /**
     * @param qualified the application's {@code @GenDurableDataSource DataSource} beans
     * @return a supplier of the single such bean, or empty when there is none
     * @throws IllegalStateException when several beans qualify
     */
    public static Optional<Supplier<DataSource>> bean(Instance<DataSource> qualified) {
        if (qualified.isAmbiguous()) {
            throw new IllegalStateException("gen-durable found several javax.sql.DataSource beans qualified "
                    + "@GenDurableDataSource; keep exactly one");
        }
        return qualified.isResolvable() ? Optional.of(qualified::get) : Optional.empty();
    }

    /**
     * @param bean the application's qualified DataSource bean, if any (see {@link #bean(Instance)})
     * @return the DataSource to use
     * @throws IllegalStateException when no way works, listing the three ways and what was tried
     */
    public ResolvedDataSource resolve(Optional<Supplier<DataSource>> bean) {
        if (bean.isPresent()) {
            return new ResolvedDataSource(bean.get().get(), "the CDI bean @GenDurableDataSource DataSource", false);
        }
        List<String> tried = new ArrayList<>();
        tried.add("no javax.sql.DataSource bean qualified @GenDurableDataSource");
        String name = reader.get(ConfigKeys.DATASOURCE);
        for (String candidate : jndiNames(name)) {
            Optional<DataSource> found = jndi.find(candidate, DataSource.class, tried);
            if (found.isPresent()) {
                return new ResolvedDataSource(found.get(), "JNDI " + candidate, false);
            }
        }
        Optional<String> url = reader.value(ConfigKeys.JDBC_URL);
        if (url.isPresent()) {
            return ownPool(url.get());
        }
        tried.add("gendurable.jdbc.url is not set");
        throw new IllegalStateException("gen-durable has no DataSource. Give it one of: (1) a CDI bean "
                + "@Produces @GenDurableDataSource javax.sql.DataSource; (2) a DataSource bound in JNDI under "
                + "gendurable.datasource (default " + DEFAULT_JNDI_NAME + "); (3) gendurable.jdbc.url with "
                + "gendurable.jdbc.user and gendurable.jdbc.password (needs HikariCP on the class path). Tried: "
                + String.join("; ", tried));
    }

    /**
     * The DataSource for what needs a session of its own (the migrations, the {@code postgres}
     * poke's listener) when the engine's goes through a transaction-mode pooler:
     * {@code gendurable.session.datasource} in JNDI, else a pool of its own on
     * {@code gendurable.session.jdbc.url}.
     *
     * @return it, or empty when neither key is set (the engine's DataSource serves)
     * @throws IllegalStateException when both keys are set, or the JNDI name does not resolve
     */
    public Optional<ResolvedDataSource> resolveSession() {
        Optional<String> name = reader.value(ConfigKeys.SESSION_DATASOURCE);
        Optional<String> url = reader.value(ConfigKeys.SESSION_JDBC_URL);
        if (name.isPresent() && url.isPresent()) {
            throw new IllegalStateException("gen-durable: set one of gendurable.session.datasource (a JNDI name) and "
                    + "gendurable.session.jdbc.url (a JDBC URL), not both");
        }
        if (name.isPresent()) {
            List<String> tried = new ArrayList<>();
            for (String candidate : jndiNames(name.get())) {
                Optional<DataSource> found = jndi.find(candidate, DataSource.class, tried);
                if (found.isPresent()) {
                    return Optional.of(new ResolvedDataSource(found.get(), "JNDI " + candidate, false));
                }
            }
            throw new IllegalStateException("gen-durable: gendurable.session.datasource=" + name.get()
                    + " names no DataSource in JNDI; tried " + String.join("; ", tried));
        }
        if (url.isPresent()) {
            if (!HikariPools.available()) {
                throw new IllegalStateException("gendurable.session.jdbc.url is set but HikariCP is not on the class "
                        + "path; add com.zaxxer:HikariCP, or name a DataSource in gendurable.session.datasource");
            }
            String user = reader.get(ConfigKeys.JDBC_USER);
            DataSource pool = HikariPools.open(url.get(), user, reader.get(ConfigKeys.JDBC_PASSWORD), SESSION_POOL_SIZE,
                    "gendurable-session");
            return Optional.of(new ResolvedDataSource(pool, "own HikariCP pool (" + SESSION_POOL_SIZE + " connections) on "
                    + maskPassword(url.get()) + (user == null ? "" : " as " + user), true));
        }
        return Optional.empty();
    }

    /** Session connections the engine holds at most: Flyway's two at start-up, then the poke's listener. */
    static final int SESSION_POOL_SIZE = 3;

    private ResolvedDataSource ownPool(String url) {
        if (!HikariPools.available()) {
            throw new IllegalStateException("gendurable.jdbc.url is set but HikariCP is not on the class path; "
                    + "add com.zaxxer:HikariCP, or give the engine a DataSource through a @GenDurableDataSource "
                    + "bean or JNDI (gendurable.datasource)");
        }
        String user = reader.get(ConfigKeys.JDBC_USER);
        String password = reader.get(ConfigKeys.JDBC_PASSWORD);
        int size = poolSize(config);
        DataSource pool = HikariPools.open(url, user, password, size, "gendurable");
        return new ResolvedDataSource(pool, "own HikariCP pool (" + size + " connections) on "
                + maskPassword(url) + (user == null ? "" : " as " + user), true);
    }

    /**
     * Connections the engine's own pool needs: each queue's claim loop and heartbeat, each flusher,
     * the reaper and GC, plus a few for the application's inserts and finds. Steps hold none.
     *
     * @param config the engine configuration
     * @return the pool size
     */
    static int poolSize(EngineConfig config) {
        return Math.max(10, 2 * config.node().queues().size() + flushConnections(config) + 2 + 4);
    }

    /** @param config the engine configuration @return the flush transactions that may be open at once */
    static int flushConnections(EngineConfig config) {
        return config.flushers().stream().mapToInt(EngineConfig.FlusherConfig::parallelism).sum();
    }

    private static List<String> jndiNames(String name) {
        // "jdbc/x" is a global name in Liberty and WildFly; a resource reference lives under java:comp/env
        return name.startsWith("java:") ? List.of(name) : List.of(name, "java:comp/env/" + name);
    }

    /**
     * @param jdbcUrl a JDBC URL, which may carry {@code password=…}
     * @return the URL with any password parameter's value replaced by {@code ***}
     */
    public static String maskPassword(String jdbcUrl) {
        return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
