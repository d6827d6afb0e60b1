package io.gendurable.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The benchmark's PostgreSQL: the server named by a JDBC URL (argument, or
 * {@code GENDURABLE_BENCH_DB_URL}), else an embedded one started here with the durability of a
 * stock server ({@code fsync=on}, {@code synchronous_commit=on}; zonky's own default turns
 * {@code synchronous_commit} off, which this overrides). Each scenario gets a fresh schema.
 */
public final class BenchDb implements AutoCloseable {
    /** The environment variable naming the database. */
    public static final String URL_ENV = "GENDURABLE_BENCH_DB_URL";

    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private final String url;
    private final boolean embedded;
    private final EmbeddedPostgres pg;
    /** {@code --session-db}: the session DataSource of every in-process engine, or null. */
    private String sessionUrl;
    private HikariDataSource session;

    private BenchDb(String url, boolean embedded, EmbeddedPostgres pg) {
        this.url = url;
        this.embedded = embedded;
        this.pg = pg;
    }

    /**
     * @param url   a JDBC URL, or null to read {@link #URL_ENV}, else to start an embedded server
     * @param fsync the embedded server's fsync (ignored for a given URL)
     * @return the database
     */
    public static BenchDb open(String url, boolean fsync) {
        return open(url, fsync, "");
    }

    /**
     * @param extra the embedded server's extra settings, {@code name=value;name=value} (e.g.
     *              {@code shared_preload_libraries=pg_stat_statements} to see where the database's time goes)
     */
    public static BenchDb open(String url, boolean fsync, String extra) {
        if (url == null || url.isBlank()) {
            url = System.getenv(URL_ENV);
        }
        if (url != null && !url.isBlank()) {
            return new BenchDb(url, false, null);
        }
        try {
            Path data = Files.createTempDirectory("gendurable-bench-pg");
            EmbeddedPostgres.Builder b = EmbeddedPostgres.builder();
            for (String kv : extra == null ? new String[0] : extra.split(";")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    b.setServerConfig(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
                }
            }
            EmbeddedPostgres pg = b
                    .setDataDirectory(data)
                    .setCleanDataDirectory(true)
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("fsync", fsync ? "on" : "off")
                    .setServerConfig("synchronous_commit", fsync ? "on" : "off")
                    .setServerConfig("full_page_writes", fsync ? "on" : "off")
                    .start();
            return new BenchDb(pg.getJdbcUrl("postgres", "postgres"), true, pg);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
        }
    }

    /** @return the JDBC URL */
    public String url() {
        return url;
    }

    /** @return whether this process started the server */
    public boolean embedded() {
        return embedded;
    }

    /** @return a fresh schema name, unique in this run */
    public static String newSchema(String hint) {
        return "bench_" + hint + "_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
    }

    /**
     * Gives every in-process engine a session DataSource on {@code sessionUrl} (direct, or a
     * session-mode pooler) for its migrations and {@code postgres} poke listener, for a {@code --db}
     * that goes through a transaction-mode pooler such as PgBouncer.
     *
     * @param sessionUrl a JDBC URL, or blank for none
     */
    public void session(String sessionUrl) {
        if (sessionUrl == null || sessionUrl.isBlank()) {
            return;
        }
        this.sessionUrl = sessionUrl;
        this.session = pool(sessionUrl, "bench-session", 4);
        Node.session = session;
    }

    /** @return a pooled DataSource of {@code size} connections */
    public HikariDataSource pool(String name, int size) {
        return pool(url, name, size);
    }

    private static HikariDataSource pool(String url, String name, int size) {
        HikariConfig c = new HikariConfig();
        c.setPoolName(name);
        c.setJdbcUrl(url);
        if (!url.contains("user=")) {
            c.setUsername("postgres");
        }
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(size);
        c.setConnectionTimeout(30_000);
        return new HikariDataSource(c);
    }

    /** @return what the results depend on: server version and durability settings */
    public Map<String, Object> describe(DataSource ds) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("url", redact(url));
        if (sessionUrl != null) {
            m.put("session_url", redact(sessionUrl));
        }
        m.put("embedded", embedded);
        for (String setting : new String[]{"server_version", "synchronous_commit", "fsync", "full_page_writes",
                "wal_level", "shared_buffers", "max_connections", "autovacuum", "max_wal_size"}) {
            m.put(setting, show(ds, setting));
        }
        // what moves a server's cost per statement over a day of runs: checkpoints (full-page writes
        // after each) and catalog bloat (a schema per scenario; no autovacuum on some servers)
        m.put("checkpoints_timed_req", query(ds, "SELECT checkpoints_timed || ' / ' || checkpoints_req FROM pg_stat_bgwriter"));
        m.put("pg_attribute_dead_tuples", query(ds, "SELECT n_dead_tup::text FROM pg_stat_sys_tables WHERE relname = 'pg_attribute'"));
        return m;
    }

    private static String query(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String show(DataSource ds, String setting) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    /** Runs SQL outside any engine. */
    public static void exec(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    /** Reads one long. */
    public static long queryLong(DataSource ds, String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    @Override
    public void close() {
        if (session != null) {
            Node.session = null;
            session.close();
        }
        if (pg != null) {
            try {
                pg.close();
            } catch (IOException e) {
                System.err.println("bench: could not stop the embedded PostgreSQL: " + e);
            }
        }
    }
}
