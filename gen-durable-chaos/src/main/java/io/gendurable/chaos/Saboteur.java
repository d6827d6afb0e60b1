package io.gendurable.chaos;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The faults. One thread kills a random worker with SIGKILL now and then (waiting up to 3 s for
 * it to hold claims, so the kill lands mid-step) and starts it again,
 * alternately under the same node id and a new one; another watches {@code pg_stat_activity} and
 * terminates engine backends caught in a claim or in a flush transaction (and sometimes every
 * engine backend at once, LISTEN connections included); the server itself is restarted once.
 */
public final class Saboteur {
    // The signatures of the claim and of the flush transaction's statements (impl.claim.ClaimSql, impl.flush.FlushSql).
    private static final String FIND = """
            SELECT pid, CASE WHEN query LIKE '%WITH cand AS%' THEN 'claim' ELSE 'flush' END
            FROM pg_stat_activity
            WHERE application_name LIKE 'chaos-engine-%' AND pid <> pg_backend_pid()
              AND ((? = 'claim' AND state = 'active' AND query LIKE '%WITH cand AS%')
                OR (? = 'flush' AND state IN ('active', 'idle in transaction')
                    AND (query LIKE '%AS t(id, worker, claim_token%' OR query LIKE '%c(target_id, signal_id)%'
                         OR query LIKE '%s.name = ANY (g.awaits)%')))
            LIMIT 1
            """;
    private static final String ALL = """
            SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
            WHERE application_name LIKE 'chaos-engine-%' AND pid <> pg_backend_pid()
            """;

    private static final String HELD = "SELECT count(*) FROM " + ChaosSchema.ENGINE
            + ".gen_durable WHERE status = 'executing' AND locked_by LIKE ?";

    private final ChaosDatabase db;
    private final List<WorkerProcess> workers;
    private final Random random;
    private final long killEveryMillis;
    private final long restartAtMillis;
    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger newNodeIds = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong claimsAtKill = new java.util.concurrent.atomic.AtomicLong();
    private final AtomicInteger midClaim = new AtomicInteger();
    private final AtomicInteger midFlush = new AtomicInteger();
    private final AtomicInteger massTerminations = new AtomicInteger();
    private final AtomicInteger massTerminated = new AtomicInteger();
    private final List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile long pgRestartMillis = -1;
    private volatile boolean running;
    private final List<Thread> threads = new ArrayList<>();

    /**
     * @param db              the server to restart once
     * @param workers         the worker slots
     * @param seed            the random seed (printed, so a run can be replayed)
     * @param killEveryMillis the mean time between worker kills
     * @param restartAtMillis when (after {@link #start()}) the server restarts
     */
    public Saboteur(ChaosDatabase db, List<WorkerProcess> workers, long seed, long killEveryMillis, long restartAtMillis) {
        this.db = db;
        this.workers = workers;
        this.random = new Random(seed);
        this.killEveryMillis = killEveryMillis;
        this.restartAtMillis = restartAtMillis;
    }

    /** Starts the fault threads. */
    public void start() {
        running = true;
        long t0 = System.currentTimeMillis();
        threads.add(thread("chaos-killer", this::killLoop));
        threads.add(thread("chaos-sniper", this::sniperLoop));
        threads.add(thread("chaos-pg-restart", () -> {
            sleep(restartAtMillis - (System.currentTimeMillis() - t0));
            if (running) {
                event("restarting PostgreSQL");
                pgRestartMillis = db.restart();
                event("PostgreSQL back after " + pgRestartMillis + " ms");
            }
        }));
    }

    /** Stops the faults and waits for the threads; dead workers are started again. */
    public void stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.interrupt();
            t.join(60_000);
        }
        for (WorkerProcess w : workers) {
            if (!w.alive()) {
                event("starting " + w.node() + " again after the chaos window");
                w.start();
            }
        }
    }

    private static Thread thread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void killLoop() {
        while (running) {
            sleep((long) (killEveryMillis * (0.5 + random.nextDouble())));
            if (!running) {
                return;
            }
            WorkerProcess w = workers.get(random.nextInt(workers.size()));
            String old = w.node();
            long held = waitForClaims(old, 3_000);
            w.kill9();
            kills.incrementAndGet();
            claimsAtKill.addAndGet(Math.max(0, held));
            sleep(500 + random.nextInt(1500));
            if (kills.get() % 2 == 0) {
                String fresh = old.replaceAll("-r\\d+$", "") + "-r" + newNodeIds.incrementAndGet();
                event("kill -9 " + old + " holding " + held + " claims; restarted as new node " + fresh
                        + " (its old claims wait for a reaper)");
                w.startAs(fresh);
            } else {
                event("kill -9 " + old + " holding " + held + " claims; restarted under the same node id (start-up reclaim)");
                w.start();
            }
        }
    }

    /** Waits (up to {@code withinMillis}) until the node holds claims, so that the kill lands mid-step. */
    private long waitForClaims(String node, long withinMillis) {
        long deadline = System.currentTimeMillis() + withinMillis;
        long held = -1;
        try (Connection c = DriverManager.getConnection(db.url());
             PreparedStatement ps = c.prepareStatement(HELD)) {
            ps.setString(1, node.replace("_", "\\_") + ":%");
            do {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    held = rs.getLong(1);
                }
                if (held > 0) {
                    return held;
                }
                Thread.sleep(20);
            } while (running && System.currentTimeMillis() < deadline);
        } catch (SQLException e) {
            return -1;  // the server is restarting: kill anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return held;
    }

    private void sniperLoop() {
        Connection c = null;
        int round = 0;
        while (running) {
            sleep(1000 + random.nextInt(1000));
            if (!running) {
                break;
            }
            round++;
            try {
                if (c == null || c.isClosed() || !c.isValid(1)) {
                    c = DriverManager.getConnection(db.url());
                }
                if (round % 10 == 0) {
                    try (ResultSet rs = c.createStatement().executeQuery(ALL)) {
                        rs.next();
                        massTerminated.addAndGet(rs.getInt(1));
                        massTerminations.incrementAndGet();
                    }
                } else {
                    snipe(c, round % 2 == 0 ? "claim" : "flush", 2_000);
                }
            } catch (SQLException e) {
                c = null;  // the server is restarting: try again next round
            }
        }
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // done
            }
        }
    }

    /** Polls for a backend in the wanted phase for up to {@code withinMillis} and terminates it. */
    private void snipe(Connection c, String kind, long withinMillis) throws SQLException {
        long deadline = System.currentTimeMillis() + withinMillis;
        try (PreparedStatement find = c.prepareStatement(FIND);
             PreparedStatement kill = c.prepareStatement("SELECT pg_terminate_backend(?)")) {
            find.setString(1, kind);
            find.setString(2, kind);
            while (running && System.currentTimeMillis() < deadline) {
                try (ResultSet rs = find.executeQuery()) {
                    if (rs.next()) {
                        kill.setInt(1, rs.getInt(1));
                        kill.execute();
                        (kind.equals("claim") ? midClaim : midFlush).incrementAndGet();
                        return;
                    }
                }
                sleep(2);
            }
        }
    }

    private void event(String what) {
        String line = String.format("%tT %s", System.currentTimeMillis(), what);
        events.add(line);
        System.out.println("chaos: " + line);
    }

    private void sleep(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** @return a one-line summary of the faults injected */
    public String summary() {
        return "worker kills (SIGKILL)=" + kills.get() + " (restarted under a new node id: " + newNodeIds.get()
                + "; claims held at the kills: " + claimsAtKill.get() + "), backends terminated mid-claim=" + midClaim.get() + ", mid-flush=" + midFlush.get()
                + ", mass terminations=" + massTerminations.get() + " (" + massTerminated.get() + " backends)"
                + ", PostgreSQL restarts=" + db.restarts() + (pgRestartMillis >= 0 ? " (down " + pgRestartMillis + " ms)" : "");
    }

    /** @return kills, mid-claim and mid-flush terminations, restarts */
    public int[] counts() {
        return new int[] {kills.get(), midClaim.get(), midFlush.get(), db.restarts()};
    }

    /** @return the fault events, timestamped */
    public List<String> events() {
        return List.copyOf(events);
    }
}
