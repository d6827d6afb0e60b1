package io.gendurable.impl.support;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.testing.SharedTestDatabase;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * A PgBouncer of the test's own, in transaction mode, in front of the tests' PostgreSQL (the
 * server of {@code GENDURABLE_TEST_DB_URL}, else the embedded one): the binary named by
 * {@value #BINARY_VARIABLE} (environment variable or system property), else {@code pgbouncer} from
 * the PATH or {@code /usr/sbin} (where Debian installs it), started on a free port with its ini
 * in a temporary directory, and stopped by {@link #close()}. It never uses a system PgBouncer (the
 * Debian package may run one on 6432). Without the binary it fails saying how to install it: the
 * tests that need it do not skip.
 *
 * <p>Two databases: {@link #POOLED} (at most {@code poolSize} server connections) and
 * {@link #SINGLE} (one server connection, shared by every client between their transactions).
 */
public final class TestPgBouncer implements AutoCloseable {
    /** Names the pgbouncer binary to run, when it is not on the PATH. */
    public static final String BINARY_VARIABLE = "GENDURABLE_TEST_PGBOUNCER";
    /** The database of {@code poolSize} server connections. */
    public static final String POOLED = "gd_pooled";
    /** The database of one server connection. */
    public static final String SINGLE = "gd_single";

    private final Path dir;
    private final Path log;
    private final int port;
    private final int poolSize;
    private final String user;
    private Process process;

    private TestPgBouncer(Path dir, int port, int poolSize, String user) {
        this.dir = dir;
        this.log = dir.resolve("pgbouncer.log");
        this.port = port;
        this.poolSize = poolSize;
        this.user = user;
    }

    /**
     * @param poolSize the most server connections of {@link #POOLED}
     * @return a running PgBouncer in transaction mode in front of the tests' database
     */
    public static TestPgBouncer start(int poolSize) {
        String binary = binary();
        Properties db = org.postgresql.Driver.parseURL(SharedTestDatabase.url(), new Properties());
        if (db == null) {
            throw new IllegalStateException("not a PostgreSQL JDBC URL: " + SharedTestDatabase.url());
        }
        String host = db.getProperty("PGHOST", "127.0.0.1").split(",")[0];
        String serverPort = db.getProperty("PGPORT", "5432").split(",")[0];
        String user = db.getProperty("user", "postgres");
        String password = db.getProperty("password");
        String target = "host=" + host + " port=" + serverPort + " dbname=" + db.getProperty("PGDBNAME", "postgres")
                + " user=" + user + (password == null ? "" : " password=" + password);
        try {
            Path dir = Files.createTempDirectory("gendurable-pgbouncer");
            TestPgBouncer b = new TestPgBouncer(dir, freePort(), poolSize, user);
            // auth_type=any: clients are not authenticated, every server login is the user of [databases];
            // extra_float_digits: pgjdbc sends it at start-up, PgBouncer 1.18 refuses unknown parameters
            Files.writeString(dir.resolve("pgbouncer.ini"), String.join("\n",
                    "[databases]",
                    POOLED + " = " + target + " pool_size=" + poolSize + " max_db_connections=" + poolSize,
                    SINGLE + " = " + target + " pool_size=1 max_db_connections=1",
                    "[pgbouncer]",
                    "listen_addr = 127.0.0.1",
                    "listen_port = " + b.port,
                    "unix_socket_dir =",
                    "auth_type = any",
                    "pool_mode = transaction",
                    "max_client_conn = 500",
                    "ignore_startup_parameters = extra_float_digits",
                    "query_wait_timeout = 60",
                    ""), StandardCharsets.UTF_8);
            b.launch(binary);
            return b;
        } catch (IOException e) {
            throw new IllegalStateException("could not write PgBouncer's configuration: " + e, e);
        }
    }

    private static String binary() {
        String named = System.getProperty(BINARY_VARIABLE, System.getenv(BINARY_VARIABLE));
        if (named != null && !named.isBlank()) {
            if (!Files.isExecutable(Path.of(named))) {
                throw new IllegalStateException(BINARY_VARIABLE + "=" + named + " is not an executable file");
            }
            return named;
        }
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/usr/local/bin", "/opt/homebrew/bin"));
        for (String d : dirs) {
            if (!d.isBlank() && Files.isExecutable(Path.of(d, "pgbouncer"))) {
                return Path.of(d, "pgbouncer").toString();
            }
        }
        throw new IllegalStateException("the PgBouncer tests need pgbouncer (1.18 or newer), and there is none on the PATH ("
                + System.getenv("PATH") + ") nor in /usr/sbin or /usr/local/sbin, and " + BINARY_VARIABLE
                + " is not set. Install it: on Debian or Ubuntu `sudo apt-get install -y pgbouncer` (.ci/run does so when"
                + " it runs as root), on macOS `brew install pgbouncer`; or set " + BINARY_VARIABLE + " to its path."
                + " The tests start a PgBouncer of their own on a free port; a system one is never used.");
    }

    private void launch(String binary) {
        List<String> command = new ArrayList<>(List.of(binary));
        if ("root".equals(System.getProperty("user.name"))) {
            command.addAll(List.of("-u", "nobody"));  // PgBouncer refuses to run as root; it reads its ini first
        }
        command.add(dir.resolve("pgbouncer.ini").toString());
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        } catch (IOException e) {
            throw new IllegalStateException("could not start " + command + ": " + e, e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "gendurable-test-pgbouncer-stop"));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!accepts()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException(command + " did not listen on 127.0.0.1:" + port + " within 10 s"
                        + (process.isAlive() ? "" : " (it exited with " + process.exitValue() + ")") + "; its log: " + log());
            }
            try {
                Thread.sleep(20);  // waiting for a process to listen: the time is the subject
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while PgBouncer started", e);
            }
        }
    }

    private boolean accepts() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** @return the most server connections of {@link #POOLED} */
    public int poolSize() {
        return poolSize;
    }

    /**
     * @param database {@link #POOLED} or {@link #SINGLE}
     * @param params   more URL parameters ({@code prepareThreshold=0&ApplicationName=x}), or empty
     * @return a JDBC URL through this PgBouncer
     */
    public String url(String database, String params) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=" + user + (params.isEmpty() ? "" : "&" + params);
    }

    /**
     * @param database {@link #POOLED} or {@link #SINGLE}
     * @param params   more URL parameters, or empty
     * @param size     the pool's connections, all opened at once and kept (clients of PgBouncer)
     * @return a HikariCP pool through this PgBouncer; the caller closes it
     */
    public HikariDataSource pool(String database, String params, int size) {
        HikariConfig c = new HikariConfig();
        c.setPoolName("pgbouncer-" + database);
        c.setJdbcUrl(url(database, params));
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(size);
        c.setConnectionTimeout(30_000);
        return new HikariDataSource(c);
    }

    /** @return what PgBouncer logged so far */
    public String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops it (SIGTERM: PgBouncer's fast exit) and deletes its directory. */
    @Override
    public void close() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // a temporary directory
        }
    }
}
