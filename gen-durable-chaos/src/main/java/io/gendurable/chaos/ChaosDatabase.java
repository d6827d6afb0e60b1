package io.gendurable.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.List;

/**
 * The suite's own PostgreSQL (embedded, zonky binaries) on a fixed port and data directory, so
 * that it can be stopped and started again under running workers: they keep the same JDBC URL
 * and must reconnect. Never the machine's shared server.
 *
 * <p>Durability settings: {@code fsync} is off (zonky passes {@code -F}), which only matters if the
 * operating system itself crashes: every WAL and data page PostgreSQL has written is in the page
 * cache, which outlives any process. {@code synchronous_commit} is ON: a commit is acknowledged
 * only after its WAL was written out of PostgreSQL's shared buffers, so a {@code kill -9} of the
 * postmaster (see {@link #crash()}) loses nothing acknowledged. With {@code synchronous_commit=off}
 * it could: the WAL writer and the backends exit on postmaster death without writing the WAL
 * buffers, and the last acknowledged commits are gone (docs/reliability.md).
 */
public final class ChaosDatabase implements AutoCloseable {
    private final File dataDirectory;
    private final int port;
    private EmbeddedPostgres pg;
    private int restarts;
    private int crashes;

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

    /**
     * Crashes the server: SIGKILL of the postmaster (no shutdown, no checkpoint), then, once its
     * orphaned children noticed and exited (PostgreSQL refuses to start while they hold the old
     * shared memory), starts it again on the same data directory and port: crash recovery replays
     * the WAL from the last checkpoint.
     *
     * @return the milliseconds from the kill until the server accepted connections again
     */
    public synchronized long crash() {
        long pid = postmasterPid();
        List<Long> children = childrenOf(pid);
        long t0 = System.nanoTime();
        signal("KILL", pid);
        waitGone(List.of(pid), 10_000);
        if (!waitGone(children, 15_000)) {
            // they should exit on postmaster death within milliseconds; do not hang the run on one
            children.forEach(c -> signal("KILL", c));
            waitGone(children, 5_000);
        }
        try {
            pg.close();  // pg_ctl stop finds no server (logged by zonky); this releases zonky's lock file
        } catch (IOException ignored) {
            // the server is already gone
        }
        RuntimeException last = null;
        for (int attempt = 1; attempt <= 5; attempt++) {
            try {
                pg = launch();
                last = null;
                break;
            } catch (RuntimeException e) {
                last = e;
                sleep(1_000);
            }
        }
        if (last != null) {
            throw last;
        }
        crashes++;
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** @return how many times the server was crashed with kill -9 and recovered */
    public synchronized int crashes() {
        return crashes;
    }

    /** @return the postmaster's pid, from {@code postmaster.pid} */
    private long postmasterPid() {
        try {
            return Long.parseLong(Files.readAllLines(new File(dataDirectory, "postmaster.pid").toPath()).get(0).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("no postmaster.pid in " + dataDirectory, e);
        }
    }

    private static List<Long> childrenOf(long pid) {
        return ProcessHandle.of(pid).map(p -> p.children().map(ProcessHandle::pid).toList()).orElse(List.of());
    }

    private static void signal(String sig, long pid) {
        try {
            new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start().waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return whether every process of {@code pids} ended within {@code timeoutMillis} */
    static boolean waitGone(List<Long> pids, long timeoutMillis) {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            if (pids.stream().noneMatch(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false))) {
                return true;
            }
            sleep(20);
        }
        return false;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
                    // on: a kill -9 of the postmaster must not lose acknowledged commits (class comment)
                    .setServerConfig("synchronous_commit", "on")
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
