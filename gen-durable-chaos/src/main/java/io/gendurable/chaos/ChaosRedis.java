package io.gendurable.chaos;

import io.lettuce.core.KillArgs;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Redis of a chaos run with {@code -Dchaos.limiter=redis}: a {@code redis-server} of the run's
 * own on the fixed port {@link #PORT} (no persistence, so a restart loses every holder and the
 * limiter must rebuild them from PostgreSQL), restarted with SIGKILL mid-load and with its client
 * connections killed ({@code CLIENT KILL TYPE normal} and {@code pubsub}) during the run.
 */
public final class ChaosRedis implements AutoCloseable {
    /** The suite's fixed port. */
    public static final int PORT = 6391;
    /** The system property that selects the Redis limiter (and poke) for the workers. */
    public static final String LIMITER_PROPERTY = "chaos.limiter";

    private final File log;
    private Process process;
    private final AtomicInteger restarts = new AtomicInteger();
    private final AtomicInteger drops = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private long restartDownMillis = -1;
    private RedisClient client;
    private StatefulRedisConnection<String, String> admin;

    /** @param log where its output goes */
    public ChaosRedis(File log) {
        this.log = log;
    }

    /** @return whether the run uses the Redis limiter */
    public static boolean enabled() {
        return "redis".equalsIgnoreCase(System.getProperty(LIMITER_PROPERTY, "postgres"));
    }

    /** @return its URL */
    public static String url() {
        return "redis://127.0.0.1:" + PORT;
    }

    /** Starts it and waits until it answers. */
    public synchronized void start() throws Exception {
        process = new ProcessBuilder(List.of("redis-server", "--port", String.valueOf(PORT), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no")).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log)).start();
        long deadline = System.currentTimeMillis() + 10_000;
        while (true) {
            try {
                if (client == null) {
                    client = RedisClient.create(url());
                }
                admin = client.connect();
                admin.sync().ping();
                return;
            } catch (RuntimeException e) {
                if (System.currentTimeMillis() > deadline || !process.isAlive()) {
                    throw new IOException("redis-server on port " + PORT + " did not answer within 10 s (see " + log + ")", e);
                }
                Thread.sleep(50);
            }
        }
    }

    /** Kills it with SIGKILL (every key is gone) and starts it again. */
    public synchronized void restart() throws Exception {
        long t0 = System.currentTimeMillis();
        kill();
        start();
        restartDownMillis = System.currentTimeMillis() - t0;
        restarts.incrementAndGet();
    }

    /** Kills every client connection but its own (commands and Pub/Sub). */
    public synchronized void dropConnections() {
        try {
            long n = admin.sync().clientKill(KillArgs.Builder.typeNormal()) + admin.sync().clientKill(KillArgs.Builder.typePubsub());
            drops.incrementAndGet();
            dropped.addAndGet((int) n);
        } catch (RuntimeException e) {
            // restarting: skipped
        }
    }

    /** @return the live (unexpired) holders of a gate key of the engine's schema, or -1 when Redis does not answer */
    public synchronized long liveHolders(String key) {
        try {
            return admin.sync().zcount("gendurable:" + ChaosSchema.ENGINE + ":conc:" + key,
                    Range.create((double) System.currentTimeMillis(), Double.POSITIVE_INFINITY));
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** @return whether the limiter's epoch key exists (false after a restart, until an admission rebuilt the holders) */
    public synchronized boolean hasEpoch() {
        try {
            return admin.sync().exists("gendurable:" + ChaosSchema.ENGINE + ":epoch") == 1;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** @return a one-line summary of its faults */
    public String summary() {
        return "Redis restarts (kill -9, no persistence)=" + restarts.get()
                + (restartDownMillis >= 0 ? " (down " + restartDownMillis + " ms)" : "")
                + ", Redis connection drops=" + drops.get() + " (" + dropped.get() + " connections)";
    }

    private void kill() throws InterruptedException {
        if (admin != null) {
            try {
                admin.close();
            } catch (RuntimeException ignored) {
                // going down anyway
            }
        }
        if (process != null) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    @Override
    public synchronized void close() throws Exception {
        kill();
        if (client != null) {
            client.shutdown();
        }
    }
}
