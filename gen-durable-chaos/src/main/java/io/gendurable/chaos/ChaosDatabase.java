package io.gendurable.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/**
 * The suite's own PostgreSQL (embedded, zonky binaries) on a fixed port and data directory, so
 * that it can be stopped and started again under running workers: they keep the same JDBC URL
 * and must reconnect. Never the machine's shared server.
 */
public final class ChaosDatabase implements AutoCloseable {
    private final File dataDirectory;
    private final int port;
    private EmbeddedPostgres pg;
    private int restarts;

    /** @param dataDirectory where the cluster lives (wiped at the first start) */
    public ChaosDatabase(File dataDirectory) {
        this.dataDirectory = dataDirectory;
        this.port = freePort();
    }

    /** Starts the server on a fresh cluster. */
    public synchronized void start() {
        deleteRecursively(dataDirectory);  // never clean through zonky: it would also wipe the data at each stop
        pg = launch();
    }

    /** Stops the server (fast shutdown: every backend is terminated) and starts it again on the same data. */
    public synchronized long restart() {
        long t0 = System.nanoTime();
        try {
            pg.close();
        } catch (IOException e) {
            throw new UncheckedIOException("could not stop the chaos PostgreSQL", e);
        }
        pg = launch();
        restarts++;
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** @return how many times the server was restarted */
    public synchronized int restarts() {
        return restarts;
    }

    /** @return the JDBC URL (user postgres) */
    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    private EmbeddedPostgres launch() {
        try {
            return EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setServerConfig("max_connections", "200")
                    .setServerConfig("fsync", "off")
                    .setServerConfig("synchronous_commit", "off")
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the chaos PostgreSQL on port " + port, e);
        }
    }

    @Override
    public synchronized void close() {
        if (pg != null) {
            try {
                pg.close();
            } catch (IOException ignored) {
                // going away
            }
            pg = null;
        }
    }

    private static void deleteRecursively(File f) {
        File[] children = f.listFiles();
        if (children != null) {
            for (File c : children) {
                deleteRecursively(c);
            }
        }
        f.delete();
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
