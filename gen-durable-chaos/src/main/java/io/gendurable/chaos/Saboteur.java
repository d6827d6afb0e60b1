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
 * engine backend at once, LISTEN connections included); the server itself is restarted once
 * (fast shutdown) and crashed ({@code kill -9} of the postmaster) on a schedule. A third thread
 * <b>pauses</b> workers: SIGSTOP while a step runs, until the reapers of the other nodes took
 * every claim it held (past the lease), then SIGCONT: the zombie finishes its steps and flushes
 * outcomes that must all be refused. Every other pause is an <b>undeploy</b>: the worker is frozen
 * while it holds admitted, not yet started children (buffered gate slots), and woken straight into
 * a graceful stop once the others fill the gate, so its drain releases rows it no longer owns.
 * A fourth <b>re-claims under the same worker</b>: while a worker runs a step, its row's claim is
 * replaced by a new one of the same worker and attempt (a fresh token, as a reaper and a re-claim
 * by the same scheduler leave it): the step outlives its claim, and its outcome must be refused
 * by the token alone (worker and attempt still match). The invariants' live-claim check covers it.
 */
public final class Saboteur {
    // The signatures of the claim and of the flush transaction's statements (impl.claim.ClaimSql, impl.flush.FlushSql).
    private static final String FIND = """
            SELECT pid, CASE WHEN query LIKE '%WITH RECURSIVE prio AS%' THEN 'claim' ELSE 'flush' END
            FROM pg_stat_activity
            WHERE application_name LIKE 'chaos-engine-%' AND pid <> pg_backend_pid()
              AND ((? = 'claim' AND state = 'active' AND query LIKE '%WITH RECURSIVE prio AS%')
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
    // the same, claimed by the incarnation launched at the given epoch millis or later (a dead
    // earlier incarnation of the node id may still hold rows until a reaper or its successor frees them)
    private static final String HELD_SINCE = HELD + " AND updated_at > to_timestamp(?::double precision / 1000)";

    // a row a paused worker holds, admitted under the gate but not started (no begin entry since its claim)
    private static final String BUFFERED_GATED = """
            SELECT count(*) FROM %1$s.gen_durable g
            WHERE g.status = 'executing' AND g.locked_by LIKE ? AND g.concurrency_key = '%2$s' AND g.concurrency_shard >= 0
              AND NOT EXISTS (SELECT 1 FROM %3$s l WHERE l.instance_id = g.id AND l.phase = 'begin' AND l.node = ?
                                AND l.step = g.step AND l.attempt = g.attempt AND l.at >= g.updated_at)
              AND g.updated_at > to_timestamp(?::double precision / 1000)
            """.formatted(ChaosSchema.ENGINE, ChaosChild.GATE_KEY, ChaosSchema.LOG);
    // a step running on the node now (begun, not ended)
    private static final String RUNNING = """
            SELECT count(*) FROM %1$s b WHERE b.node = ? AND b.phase = 'begin' AND b.at > now() - interval '3 seconds'
              AND b.at > to_timestamp(?::double precision / 1000)
              AND NOT EXISTS (SELECT 1 FROM %1$s e WHERE e.exec = b.exec AND e.phase = 'end')
            """.formatted(ChaosSchema.LOG);
    // the child steps running on the node now: their instance ids
    private static final String RUNNING_CHILDREN = """
            SELECT coalesce(string_agg(b.instance_id::text, ','), '') FROM %1$s b
            WHERE b.node = ? AND b.fsm = 'chaos-child' AND b.phase = 'begin' AND b.at > now() - interval '3 seconds'
              AND NOT EXISTS (SELECT 1 FROM %1$s e WHERE e.exec = b.exec AND e.phase = 'end')
            """.formatted(ChaosSchema.LOG);
    private static final String STILL_RUNNING = "SELECT count(*) FROM " + ChaosSchema.LOG
            + " b WHERE b.instance_id = ANY (string_to_array(?, ',')::bigint[]) AND b.phase = 'begin' AND b.node = ?"
            + " AND b.at > now() - interval '3 seconds'"
            + " AND NOT EXISTS (SELECT 1 FROM " + ChaosSchema.LOG + " e WHERE e.exec = b.exec AND e.phase = 'end')";
    private static final String HELD_IDS = "SELECT coalesce(string_agg(id::text, ','), '') FROM " + ChaosSchema.ENGINE
            + ".gen_durable WHERE status = 'executing' AND locked_by LIKE ? AND updated_at > to_timestamp(?::double precision / 1000)";
    private static final String RUNNING_IDS = """
            SELECT coalesce(string_agg(DISTINCT b.instance_id::text, ','), '') FROM %1$s b
            WHERE b.node = ? AND b.phase = 'begin' AND b.at > to_timestamp(?::double precision / 1000)
              AND NOT EXISTS (SELECT 1 FROM %1$s e WHERE e.exec = b.exec AND e.phase = 'end')
            """.formatted(ChaosSchema.LOG);
    // the rows among these being re-run on another node since the pause, still running
    private static final String RERUN = "SELECT count(DISTINCT b.instance_id) FROM " + ChaosSchema.LOG
            + " b WHERE b.instance_id = ANY (string_to_array(?, ',')::bigint[]) AND b.node <> ? AND b.phase = 'begin'"
            + " AND b.at > to_timestamp(?::double precision / 1000)"
            + " AND NOT EXISTS (SELECT 1 FROM " + ChaosSchema.LOG + " e WHERE e.exec = b.exec AND e.phase = 'end')";
    // a running step's row, re-claimed under the same worker and attempt: only the token changes
    private static final String RECLAIM_SAME_WORKER = """
            UPDATE %1$s.gen_durable SET claim_token = nextval('%1$s.gen_durable_claim_token'), updated_at = now()
            WHERE id = ?::bigint AND status = 'executing' AND locked_by LIKE ?
            RETURNING id
            """.formatted(ChaosSchema.ENGINE);
    private static final String GATE_HELD = "SELECT count(*) FROM " + ChaosSchema.ENGINE
            + ".gen_durable WHERE status = 'executing' AND concurrency_key = '" + ChaosChild.GATE_KEY
            + "' AND concurrency_shard >= 0";

    /**
     * When faults happen.
     *
     * @param windowMillis     the chaos window (no pause starts that could not end inside it)
     * @param killEveryMillis  the mean time between worker kills
     * @param restartAtMillis  when the server restarts cleanly (once)
     * @param crashAtMillis    when the server is crashed (kill -9 of the postmaster)
     * @param pauseFirstMillis when the first worker pause starts
     * @param pauseEveryMillis the mean time from the end of one pause to the start of the next
     */
    public record Plan(long windowMillis, long killEveryMillis, long restartAtMillis, List<Long> crashAtMillis,
                       long pauseFirstMillis, long pauseEveryMillis) {
    }

    /**
     * One pause of a worker JVM.
     *
     * @param node          the paused node id
     * @param since         when the paused incarnation was launched (claims of earlier, dead ones
     *                      of the same node id are not its)
     * @param startedAt     when SIGSTOP had surely taken effect (epoch millis, after kill returned)
     * @param endedAt       the earliest the JVM can have run again (epoch millis, before SIGCONT)
     * @param undeploy      whether it was woken into a graceful stop
     * @param claimsHeld    rows it held (executing under its node) right after SIGSTOP
     * @param bufferedGated of these, admitted children it had not started (gate slots in its buffer)
     * @param reaped        whether every held claim had been taken away before SIGCONT
     * @param gateHeldAtWake gate slots held by admitted rows when it woke (the others' work)
     */
    public record Pause(String node, long since, long startedAt, long endedAt, boolean undeploy, int claimsHeld, int bufferedGated,
                        boolean reaped, long gateHeldAtWake) {
    }

    private final ChaosDatabase db;
    private final List<WorkerProcess> workers;
    private final Random random;
    private final Plan plan;
    private final long killEveryMillis;
    private final long restartAtMillis;
    private final List<Pause> pauses = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<Long> crashDownMillis = java.util.Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger newNodeIds = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong claimsAtKill = new java.util.concurrent.atomic.AtomicLong();
    private final AtomicInteger midClaim = new AtomicInteger();
    private final AtomicInteger midFlush = new AtomicInteger();
    private final AtomicInteger massTerminations = new AtomicInteger();
    private final AtomicInteger massTerminated = new AtomicInteger();
    private final AtomicInteger sameWorkerReclaims = new AtomicInteger();
    private final List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile long pgRestartMillis = -1;
    private volatile boolean running;
    private final List<Thread> threads = new ArrayList<>();

    /**
     * @param db      the server to restart and crash
     * @param workers the worker slots
     * @param seed    the random seed (printed, so a run can be replayed)
     * @param plan    when faults happen
     */
    public Saboteur(ChaosDatabase db, List<WorkerProcess> workers, long seed, Plan plan) {
        this.db = db;
        this.workers = workers;
        this.random = new Random(seed);
        this.plan = plan;
        this.killEveryMillis = plan.killEveryMillis();
        this.restartAtMillis = plan.restartAtMillis();
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
        threads.add(thread("chaos-pg-crash", () -> {
            for (long at : plan.crashAtMillis()) {
                sleep(at - (System.currentTimeMillis() - t0));
                if (!running) {
                    return;
                }
                event("kill -9 of the PostgreSQL postmaster");
                long down = db.crash();
                crashDownMillis.add(down);
                event("PostgreSQL recovered from the crash after " + down + " ms");
            }
        }));
        Random pauseRandom = new Random(random.nextLong());
        threads.add(thread("chaos-pauser", () -> pauseLoop(t0, pauseRandom)));
        Random reclaimRandom = new Random(random.nextLong());
        threads.add(thread("chaos-reclaimer", () -> reclaimLoop(reclaimRandom)));
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
            int first = random.nextInt(workers.size());
            for (int k = 0; k < workers.size(); k++) {
                WorkerProcess w = workers.get((first + k) % workers.size());
                if (w.tryReserve()) {  // else paused right now: the pauser owns it
                    try {
                        killOnce(w);
                    } finally {
                        w.unreserve();
                    }
                    break;
                }
            }
        }
    }

    private void killOnce(WorkerProcess w) {
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

    /** Every few seconds: a running step's claim is replaced under the same worker (see the class comment). */
    private void reclaimLoop(Random r) {
        sleep(plan.pauseFirstMillis() / 2);
        try (Probe c = new Probe(db.url())) {
            while (running) {
                WorkerProcess w = workers.get(r.nextInt(workers.size()));
                if (w.alive()) {
                    String ids = c.text(RUNNING_IDS, w.node(), Long.toString(w.launchedAt()));
                    if (!ids.isEmpty() && !ids.equals("-1")) {
                        String[] running = ids.split(",");
                        String id = running[r.nextInt(running.length)];
                        if (!c.text(RECLAIM_SAME_WORKER, id, lockedBy(w.node())).equals("-1")) {
                            sameWorkerReclaims.incrementAndGet();
                            event("re-claimed instance " + id + " under the same worker of " + w.node()
                                    + " while its step runs (only the token changed)");
                        }
                    }
                }
                sleep(3_000 + r.nextInt(4_000));
            }
        }
    }

    private void pauseLoop(long t0, Random r) {
        sleep(plan.pauseFirstMillis());
        // a pause lasts about a lease and a reaper round; do not start one that cannot end in the window
        long longest = ChaosWorker.LEASE.toMillis() + 8_000;
        for (int i = 0; running; i++) {
            if (System.currentTimeMillis() - t0 + longest > plan.windowMillis()) {
                return;
            }
            pauseOnce(i % 2 == 0, r);
            sleep((long) (plan.pauseEveryMillis() * (0.75 + 0.5 * r.nextDouble())));
        }
    }

    /**
     * Freezes a worker that holds claims (a running step; for an undeploy, admitted children it
     * has not started, behind a running child that the hold flag keeps running past the wake),
     * waits until the other nodes' reapers took every claim it held and, for an undeploy, until
     * the gate is full again with the others' work, then wakes it.
     */
    private void pauseOnce(boolean undeploy, Random r) {
        try (Probe c = new Probe(db.url())) {
            WorkerProcess w = null;
            List<java.io.File> hold = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 15_000;
            // the moment: some worker runs a step (plain) or buffers admitted children behind a running one (undeploy)
            while (w == null && running && System.currentTimeMillis() < deadline) {
                int start = r.nextInt(workers.size());
                for (int k = 0; k < workers.size() && w == null; k++) {
                    WorkerProcess cand = workers.get((start + k) % workers.size());
                    if (!cand.alive() || !cand.tryReserve()) {
                        continue;
                    }
                    String node = cand.node();
                    if (!undeploy) {
                        if (c.count(RUNNING, node, Long.toString(cand.launchedAt())) > 0) {
                            w = cand;
                        }
                    } else if (c.count(BUFFERED_GATED, lockedBy(node), node, Long.toString(cand.launchedAt())) > 0) {
                        // every child slot of the node is busy (else nothing would wait in its buffer):
                        // hold those steps, then make sure they are all still running
                        String children = c.text(RUNNING_CHILDREN, node);
                        if (children.split(",").length >= ChaosChild.QUEUE_CONCURRENCY) {
                            for (String id : children.split(",")) {
                                java.io.File f = StepLog.holdFlag(cand.logDir(), Long.parseLong(id));
                                StepLog.setHold(f, "only:" + node);
                                hold.add(f);
                            }
                            if (c.count(STILL_RUNNING, children, node) >= ChaosChild.QUEUE_CONCURRENCY
                                    && c.count(BUFFERED_GATED, lockedBy(node), node, Long.toString(cand.launchedAt())) > 0) {
                                w = cand;
                            } else {
                                hold.forEach(java.io.File::delete);
                                hold.clear();
                            }
                        }
                    }
                    if (w == null) {
                        cand.unreserve();
                    }
                }
                if (w == null) {
                    sleep(10);
                }
            }
            if (w == null) {
                event("no worker was " + (undeploy ? "buffering admitted children behind a running one" : "running a step")
                        + " within 15 s: pause skipped");
                return;
            }
            String node = w.node();
            String since = Long.toString(w.launchedAt());
            long startedAt = w.pause();
            boolean resumed = false;
            try {
                int held = (int) c.count(HELD_SINCE, lockedBy(node), since);
                int buffered = (int) c.count(BUFFERED_GATED, lockedBy(node), node, since);
                String heldIds = c.text(HELD_IDS, lockedBy(node), since);
                String runningIds = c.text(RUNNING_IDS, node, since);  // rows whose step the zombie is in the middle of
                if (!undeploy) {
                    // the other nodes' re-runs of these rows keep running until after the wake: the
                    // zombie's late outcomes then meet rows executing under a newer claim
                    for (String id : heldIds.isEmpty() ? new String[0] : heldIds.split(",")) {
                        java.io.File f = StepLog.holdFlag(w.logDir(), Long.parseLong(id));
                        StepLog.setHold(f, "except:" + node);
                        hold.add(f);
                    }
                }
                event("SIGSTOP " + node + " holding " + held + " claims (" + buffered + " admitted children not started)");
                // the lease runs out, a reaper on another node returns the rows, the others claim them
                long until = System.currentTimeMillis() + ChaosWorker.LEASE.toMillis() + 20_000;
                long left;
                do {
                    sleep(250);
                    left = c.count(HELD_SINCE, lockedBy(node), since);
                } while (left > 0 && running && System.currentTimeMillis() < until);
                boolean reaped = left == 0;
                long gateHeld = 0;
                long rerunHeld = 0;
                long wokeAt;
                if (undeploy) {
                    // the others fill the gate again (the reconciler healed the counter): the drain's
                    // release now lands on a busy gate
                    long gateUntil = System.currentTimeMillis() + 5_000;
                    do {
                        sleep(50);
                        gateHeld = c.count(GATE_HELD);
                    } while (gateHeld < ChaosChild.GATE_LIMIT && running && System.currentTimeMillis() < gateUntil);
                    wokeAt = w.wakeIntoGracefulStop();
                    resumed = true;
                    // the held steps keep the worker's child slots busy while the engine stops picking
                    // and releases its buffer (its poke listener's stop takes up to 2 s first)
                    sleep(2_500);
                    hold.forEach(java.io.File::delete);
                    w.awaitExit(20_000);
                } else {
                    // until every row whose step it was running is being re-run elsewhere (and held
                    // there), at most 8 s: its late outcomes will meet rows executing under a newer claim
                    int want = runningIds.isEmpty() ? 0 : runningIds.split(",").length;
                    long rerunUntil = System.currentTimeMillis() + 8_000;
                    while (want > 0 && running && System.currentTimeMillis() < rerunUntil
                            && c.count(RERUN, runningIds, node, Long.toString(startedAt)) < want) {
                        sleep(50);
                    }
                    rerunHeld = want == 0 ? 0 : c.count(RERUN, runningIds, node, Long.toString(startedAt));
                    wokeAt = w.resume();
                    resumed = true;
                    sleep(1_000);  // the zombie flushes what it ran; then the re-runs may finish
                    hold.forEach(java.io.File::delete);
                }
                pauses.add(new Pause(node, w.launchedAt(), startedAt, wokeAt, undeploy, held, buffered, reaped, gateHeld));
                event((undeploy ? "SIGTERM + SIGCONT (undeploy of a frozen node) " : "SIGCONT ") + node + " after "
                        + (wokeAt - startedAt) + " ms; its claims " + (reaped ? "had all been reaped" : left + " still its own")
                        + (undeploy ? "; gate slots held by the others at the wake: " + gateHeld
                                : "; of the rows it was running a step of, being re-run elsewhere at the wake: "
                                + rerunHeld + "/" + (runningIds.isEmpty() ? 0 : runningIds.split(",").length)));
                if (undeploy) {
                    w.start();  // the node comes back (same id: nothing left to reclaim)
                }
            } finally {
                hold.forEach(java.io.File::delete);
                if (!resumed) {
                    w.resume();
                    pauses.add(new Pause(node, w.launchedAt(), startedAt, System.currentTimeMillis(), false, 0, 0, false, 0));
                }
                w.unreserve();
            }
        }
    }

    /** The pauser's connection: a query that fails (the server restarting or crashed) is retried on a new one. */
    private final class Probe implements AutoCloseable {
        private final String url;
        private Connection c;

        Probe(String url) {
            this.url = url;
        }

        long count(String sql, String... params) {
            return Long.parseLong(text(sql, params));
        }

        String text(String sql, String... params) {
            while (true) {
                try {
                    if (c == null) {
                        c = DriverManager.getConnection(url);
                    }
                    try (PreparedStatement ps = c.prepareStatement(sql)) {
                        for (int i = 0; i < params.length; i++) {
                            ps.setString(i + 1, params[i]);
                        }
                        try (ResultSet rs = ps.executeQuery()) {
                            return rs.next() ? rs.getString(1) : "-1";
                        }
                    }
                } catch (SQLException e) {
                    close();
                    if (!running) {
                        return "-1";
                    }
                    Saboteur.this.sleep(200);
                }
            }
        }

        @Override
        public void close() {
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // gone
                }
                c = null;
            }
        }
    }

    private static String lockedBy(String node) {
        return node.replace("_", "\\_") + ":%";
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
                + ", PostgreSQL restarts=" + db.restarts() + (pgRestartMillis >= 0 ? " (down " + pgRestartMillis + " ms)" : "")
                + ", PostgreSQL crashes (kill -9)=" + db.crashes() + " (down " + crashDownMillis + " ms)"
                + ", worker pauses (SIGSTOP)=" + pauses.size() + " (undeploys of a frozen node: "
                + pauses.stream().filter(Pause::undeploy).count() + "; claims held at the pauses: "
                + pauses.stream().mapToInt(Pause::claimsHeld).sum() + ", of them admitted children not started: "
                + pauses.stream().mapToInt(Pause::bufferedGated).sum() + ")"
                + ", same-worker re-claims of a running step=" + sameWorkerReclaims.get();
    }

    /** @return the pauses, in order */
    public List<Pause> pauses() {
        return List.copyOf(pauses);
    }


    /** @return the fault events, timestamped */
    public List<String> events() {
        return List.copyOf(events);
    }
}
