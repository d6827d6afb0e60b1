package io.gendurable.sample.it;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The tests' PostgreSQL, up before Arquillian starts the server and until the last test ends:
 * the server named by {@code GENDURABLE_TEST_DB_URL} when set, else an embedded one on
 * {@code GENDURABLE_DB_PORT} (the port the server's DataSources use, from the failsafe
 * configuration). It lives in the test JVM, not in the application, so the tests can still read
 * the tables after the application is undeployed. Its URL goes to the {@code it.db.url} system
 * property; the schema the application uses ({@code it.schema}) is dropped first.
 * Registered as a JUnit launcher session listener: it runs once per test JVM and never inside
 * the server.
 */
public class ItDatabase implements LauncherSessionListener {
    /**
     * Between the server and the embedded PostgreSQL (the server's DataSources use
     * {@code GENDURABLE_DB_PORT}, the proxy's; the database listens on the next port): a test cuts
     * it to make the database unreachable for the application only. Null with an external database.
     */
    static volatile TcpProxy serverLink;
    private EmbeddedPostgres postgres;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String url = System.getenv("GENDURABLE_TEST_DB_URL");
        if (url == null || url.isBlank()) {
            int serverPort = Integer.parseInt(System.getenv().getOrDefault("GENDURABLE_DB_PORT", "24339"));
            int port = serverPort + 1;
            try {
                postgres = EmbeddedPostgres.builder().setPort(port).start();
                serverLink = new TcpProxy("127.0.0.1", port, serverPort);
            } catch (IOException e) {
                throw new UncheckedIOException("the tests' embedded PostgreSQL did not start on port " + port
                        + " (or its proxy on " + serverPort + "): " + e, e);
            }
            url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
        }
        System.setProperty("it.db.url", url);
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + System.getProperty("it.schema", "gendurable_it") + " CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare the tests' database " + url, e);
        }
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        if (serverLink != null) {
            serverLink.close();
        }
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException ignored) {
                // the JVM ends next
            }
        }
    }
}
