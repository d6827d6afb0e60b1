package io.gendurable.sample;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeforeShutdown;
import jakarta.enterprise.inject.spi.Extension;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The sample's development database: an embedded PostgreSQL that starts while the application
 * deploys (after bean validation, before the engine starts with the application context) and
 * stops when the application stops, so the sample runs with no database set up.
 *
 * <p>It starts only when no database is configured: when neither {@code GENDURABLE_DB_URL} nor
 * {@code GENDURABLE_DB_HOST} is set (as an environment variable or a Java system property). It
 * listens on {@code GENDURABLE_DB_PORT} (default 54329), where the server's
 * {@code jdbc/gendurable} and {@code jdbc/gendurableTx} DataSources point by default, and keeps
 * its data under the server's output folder (Open Liberty's server folder, WildFly's
 * {@code standalone/data}: {@code gendurable-dev-db/}), so orders survive a restart. A real application has no such class: its DataSources point at its database.
 */
public class DevDatabase implements Extension {
    /** The port the server's DataSources use by default. */
    public static final int DEFAULT_PORT = 54329;
    private static final Logger LOG = System.getLogger("io.gendurable.sample");

    private EmbeddedPostgres postgres;

    void start(@Observes AfterDeploymentValidation event) {
        Optional<String> configured = setting("GENDURABLE_DB_URL").map(v -> "GENDURABLE_DB_URL")
                .or(() -> setting("GENDURABLE_DB_HOST").map(v -> "GENDURABLE_DB_HOST=" + v));
        if (configured.isPresent()) {
            LOG.log(Level.INFO, "gen-durable sample: " + configured.get() + " is set, so no embedded database starts");
            return;
        }
        int port;
        try {
            port = setting("GENDURABLE_DB_PORT").map(Integer::parseInt).orElse(DEFAULT_PORT);
        } catch (NumberFormatException e) {
            event.addDeploymentProblem(new IllegalArgumentException("GENDURABLE_DB_PORT must be a port number, got '"
                    + setting("GENDURABLE_DB_PORT").orElse("") + "'"));
            return;
        }
        // Open Liberty's server output folder, else WildFly's standalone/data
        Path home = Path.of(System.getProperty("server.output.dir",
                System.getProperty("jboss.server.data.dir", System.getProperty("user.dir"))), "gendurable-dev-db");
        try {
            long t0 = System.nanoTime();
            postgres = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setOverrideWorkingDirectory(home.resolve("bin").toFile())
                    .setDataDirectory(home.resolve("data").toFile())
                    .setCleanDataDirectory(false)      // keep the orders across restarts
                    .setRegisterShutdownHook(false)    // stopped with the application, below
                    .start();
            LOG.log(Level.INFO, "gen-durable sample: embedded PostgreSQL started on 127.0.0.1:" + port + " in "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms (data in " + home.resolve("data")
                    + "); set GENDURABLE_DB_URL or GENDURABLE_DB_HOST to use your own");
        } catch (IOException | RuntimeException e) {
            event.addDeploymentProblem(new IllegalStateException("gen-durable sample: the embedded PostgreSQL did not "
                    + "start on port " + port + " (" + e.getMessage() + "). Is the port taken? Set GENDURABLE_DB_PORT "
                    + "to another port, or GENDURABLE_DB_URL / GENDURABLE_DB_HOST to use your own database.", e));
        }
    }

    void stop(@Observes BeforeShutdown event) {
        // the engine has drained by now (DurableBean stops before the application context ends)
        if (postgres != null) {
            try {
                postgres.close();
                LOG.log(Level.INFO, "gen-durable sample: embedded PostgreSQL stopped");
            } catch (IOException e) {
                LOG.log(Level.WARNING, "gen-durable sample: the embedded PostgreSQL did not stop cleanly: " + e);
            } finally {
                postgres = null;
            }
        }
    }

    /** @return an environment variable, else a Java system property of the same name, when set and not blank */
    static Optional<String> setting(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            v = System.getProperty(name);
        }
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
    }
}
