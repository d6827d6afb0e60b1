package io.gendurable.chaos;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.impl.engine.Engine;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The failover fault on a real HA stack: a {@link FailoverCluster} (pg_auto_failover, a primary and
 * a synchronous standby), {@link #WORKERS} worker JVMs and the driver on the multi-host URL
 * ({@code targetServerType=primary}), the chaos workload; mid-run the primary is killed, the
 * standby promoted, and the engine must resume by itself. Then the chaos suite's
 * {@link Invariants} on the new primary, and the figures: from the kill to the standby accepting
 * writes, and to the first step outcome committed there.
 */
public final class FailoverRun {
    /** Worker JVMs. */
    public static final int WORKERS = 2;
    /**
     * The monitor's port (the nodes take the next free ones): below Linux's ephemeral range
     * (32768–60999), where a client connection's local port can take a port a node is about to
     * listen on (it happened: a standby failed to start, "could not create any TCP/IP sockets").
     */
    public static final int FIRST_PORT = 25432;

    /** Which fault. */
    public enum Shape {
        /** kill -9 of the primary's supervisor and PostgreSQL: the whole node is gone. */
        NODE_LOST,
        /**
         * The primary frozen (SIGSTOP of its supervisor and PostgreSQL: connections open and silent),
         * woken {@link Settings#thawAfter} after the standby's promotion: read-write, its synchronous
         * standby gone (commits there wait forever), until its supervisor demotes it.
         */
        PRIMARY_FROZEN
    }

    /**
     * @param beforeKill   how long the workload runs before the kill
     * @param afterKill    how long it goes on being fed after the kill
     * @param settleMillis how long everything may take to finish afterwards
     * @param shape        the fault
     * @param thawAfter    {@link Shape#PRIMARY_FROZEN}: how long after the promotion the old primary wakes
     * @param urlParameters the JDBC URL's parameters beyond the hosts, user and {@code targetServerType}
     * @param dir          logs, the cluster and the summary
     */
    public record Settings(Duration beforeKill, Duration afterKill, long settleMillis, Shape shape, Duration thawAfter,
                           String urlParameters, File dir) {
        /**
         * The bounds of docs/reliability.md, shortened: a connection attempt 2 s, any answer of the
         * server 10 s (the socket timeout: then the connection is dropped and the next one goes to
         * the current primary).
         */
        public static final String URL_PARAMETERS = "connectTimeout=2&socketTimeout=10";

        /** @param shape the fault @param dir the output directory @return the CI run: 15 s of work, the fault, 25 s more */
        public static Settings of(Shape shape, File dir) {
            return new Settings(Duration.ofSeconds(15), Duration.ofSeconds(shape == Shape.NODE_LOST ? 25 : 40), 120_000,
                    shape, Duration.ofSeconds(5), URL_PARAMETERS, dir);
        }

        /** @param v how long after the promotion a frozen primary wakes @return these settings with it */
        public Settings withThawAfter(Duration v) {
            return new Settings(beforeKill, afterKill, settleMillis, shape, v, urlParameters, dir);
        }

        /** @param v the URL's parameters @return these settings with them */
        public Settings withUrlParameters(String v) {
            return new Settings(beforeKill, afterKill, settleMillis, shape, thawAfter, v, dir);
        }
    }

    /**
     * What a run found.
     *
     * @param report            the invariants
     * @param summary           the printable summary
     * @param promotedMillis    from the kill to the standby accepting writes
     * @param firstCommitMillis from the kill to the first step outcome committed on the new primary
     * @param outage            what the workers' logs say about the outage
     */
    public record Result(Invariants.Report report, String summary, long promotedMillis, long firstCommitMillis,
                         Outage outage) {
    }

    private FailoverRun() {
    }

    /** Runs the failover fault once; args: [output directory] [runs]. */
    public static void main(String[] args) throws Exception {
        File dir = new File(args.length > 0 ? args[0] : "target/failover");
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        boolean passed = true;
        for (int i = 0; i < runs; i++) {
            Result r = run(Settings.of(Shape.valueOf(System.getProperty("failover.shape", "NODE_LOST")), dir));
            System.out.println(r.summary());
            passed &= r.report().passed();
        }
        System.exit(passed ? 0 : 1);
    }

    /** Runs once. */
    public static Result run(Settings s) throws Exception {
        String why = FailoverCluster.unavailable();
        if (why != null) {
            throw new IllegalStateException("the failover run needs pg_auto_failover: " + why);
        }
        Instant began = Instant.now();
        File logs = new File(s.dir(), "run-" + began.toEpochMilli());
        logs.mkdirs();
        List<WorkerProcess> workers = new ArrayList<>();
        ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
        ExecutorService steps = Executors.newCachedThreadPool();
        long t0 = System.currentTimeMillis();
        int attempts = 0;
        FailoverCluster started = null;
        while (started == null) {
            attempts++;
            FailoverCluster c = new FailoverCluster(new File(logs, "cluster-" + attempts), FIRST_PORT);
            try {
                c.start(180_000);
                started = c;
            } catch (Exception e) {
                c.close();
                if (attempts == 2) {
                    throw e;
                }
                say("the cluster did not start (" + e.getMessage().lines().findFirst().orElse("") + "); once more");
            }
        }
        try (FailoverCluster cluster = started) {
            long clusterMillis = System.currentTimeMillis() - t0;
            say("pg_auto_failover cluster up in " + clusterMillis + " ms (attempt " + attempts + "): " + cluster.describe());
            String url = cluster.url(s.urlParameters());
            HikariDataSource pool = ChaosWorker.pool(url, "chaos-driver", 8);
            Engine driver = ChaosRun.driverEngine(pool, timer, steps);
            ChaosSchema.create(pool);
            for (int i = 1; i <= WORKERS; i++) {
                WorkerProcess w = new WorkerProcess(url, logs, "w" + i, List.of("-D" + ChaosWorker.METRICS_EVERY + "=500"));
                workers.add(w);
                w.start();
            }
            for (WorkerProcess w : workers) {
                w.awaitReady(120_000);
            }
            Workload workload = new Workload(driver);
            GateProbe gate = new GateProbe(pool, null);
            var probing = timer.scheduleWithFixedDelay(gate::sample, GateProbe.INTERVAL_MILLIS, GateProbe.INTERVAL_MILLIS,
                    TimeUnit.MILLISECONDS);
            workload.start();
            say("workers ready, workload started");
            Thread.sleep(s.beforeKill().toMillis());
            String old = cluster.primary();
            String next = FailoverCluster.NODES.stream().filter(n -> !n.equals(old)).findFirst().orElseThrow();
            long before = ChaosRun.safeCount(pool, "SELECT count(*) FROM " + ChaosSchema.COMMITS);
            long killAt;
            if (s.shape() == Shape.NODE_LOST) {
                say("kill -9 of " + old + " (supervisor and PostgreSQL); " + before + " outcomes committed so far");
                killAt = cluster.killNode(old);
            } else {
                say("SIGSTOP of " + old + " (supervisor and PostgreSQL); " + before + " outcomes committed so far");
                killAt = cluster.freezeNode(old);
            }
            // the old primary's processes are gone (or stopped) now: a commit stamped later is the new primary's
            long faultDone = System.currentTimeMillis();
            long promotedAt = cluster.awaitWritablePrimary(next, 120_000);
            long promoted = promotedAt - killAt;
            say(next + " accepts writes " + promoted + " ms after the fault: " + cluster.describe());
            long firstCommit = awaitFirstCommitAfter(pool, faultDone, 120_000) - killAt;
            say("first step outcome committed on " + next + " " + firstCommit + " ms after the fault");
            String thawed = "";
            if (s.shape() == Shape.PRIMARY_FROZEN) {
                long wait = promotedAt + s.thawAfter().toMillis() - System.currentTimeMillis();
                if (wait > 0) {
                    Thread.sleep(wait);
                }
                cluster.thawNode(old);
                long thawAt = System.currentTimeMillis();
                say("SIGCONT of " + old + ": " + cluster.describe());
                long demoted = awaitNotWritable(cluster, old, 60_000);
                thawed = "; " + old + " woken " + (thawAt - killAt) + " ms after the fault, no longer writable "
                        + (demoted - thawAt) + " ms later (" + cluster.describe() + ")";
                say(thawed.substring(2));
            }
            long left = s.afterKill().toMillis() - (System.currentTimeMillis() - killAt);
            if (left > 0) {
                Thread.sleep(left);
            }
            workload.stopFeeding();
            workload.awaitSignalsSent(60_000);
            long settleMillis = ChaosRun.settle(pool, null, s.settleMillis(), FailoverRun::say);
            probing.cancel(false);
            for (WorkerProcess w : workers) {
                w.stop();
            }
            workload.close();
            driver.stop();
            Invariants.Report report = new Invariants(pool).check(new Invariants.Inputs(workload.orders(),
                    workload.parents(), workload.flows(), workload.firstSignals(), workload.firstSignalsRetried(), workload.nudges(),
                    gate.finish(),
                    List.of(), Map.of()));
            pool.close();
            Outage outage = Outage.read(logs, killAt, promotedAt + 1_000);
            String summary = "failover run " + began + " shape=" + s.shape() + " wall="
                    + Duration.between(began, Instant.now()).toSeconds() + "s cluster start=" + clusterMillis + "ms (attempts "
                    + attempts + ") settle="
                    + settleMillis + "ms\n"
                    + "  failover: " + old + (s.shape() == Shape.NODE_LOST ? " killed" : " frozen") + "; " + next
                    + " writable after " + promoted + " ms; first step outcome committed there after " + firstCommit + " ms"
                    + thawed + "\n"
                    + "  URL parameters: " + s.urlParameters() + "\n"
                    + "  while the database was away: " + outage + "\n"
                    + "  workload: " + workload.orders().size() + " orders, " + workload.parents().size() + " parents ("
                    + workload.parents().size() * ChaosParent.CHILDREN + " children), " + workload.flows().size()
                    + " inline flows, " + workload.duplicatesSent() + " duplicate signals, " + workload.retries()
                    + " driver calls retried\n"
                    + "  recovery: " + Recovery.scan(logs) + "\n"
                    + report;
            Files.writeString(new File(s.dir(), "summary.txt").toPath(), summary + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return new Result(report, summary, promoted, firstCommit, outage);
        } finally {
            for (WorkerProcess w : workers) {
                w.kill9();
            }
            timer.shutdownNow();
            steps.shutdownNow();
        }
    }

    /** @return when {@code node} was first seen refusing writes or connections (epoch millis) */
    private static long awaitNotWritable(FailoverCluster cluster, String node, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            if (!cluster.writable(node)) {
                return System.currentTimeMillis();
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(node + " still writable " + timeoutMillis + " ms after it woke: " + cluster.describe());
    }

    /** @return when the first step outcome after {@code after} (epoch millis) was committed (epoch millis) */
    private static long awaitFirstCommitAfter(HikariDataSource pool, long after, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(
                    "SELECT (extract(epoch FROM min(at)) * 1000)::bigint FROM " + ChaosSchema.COMMITS
                            + " WHERE at > to_timestamp(?::double precision / 1000)")) {
                ps.setLong(1, after);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long at = rs.getLong(1);
                    if (!rs.wasNull()) {
                        return at;
                    }
                }
            } catch (SQLException e) {
                // the pool is reconnecting
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no step outcome committed within " + timeoutMillis + " ms of the kill");
    }

    /**
     * What the workers' logs say about the outage (from the kill to a second after the promotion):
     * their readiness, their log lines per second, their live threads before the kill and at the end.
     */
    public record Outage(boolean everyWorkerDown, boolean everyWorkerUpAfter, int logLines, double seconds, int threadsBefore,
                         int threadsMaxAfter, int threadsAtEnd) {
        private static final Pattern METRICS = Pattern.compile("metrics at=(\\d+) .* ready=(UP|DOWN) threads=(\\d+)");
        private static final Pattern LOG_LINE = Pattern.compile("^(\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d) (SEVERE|WARNING|INFO|FINE)");

        static Outage read(File logs, long from, long to) {
            boolean allDown = true;
            boolean allUpAfter = true;
            int lines = 0;
            int threadsBefore = 0;
            int threadsAfter = 0;
            int threadsAtEnd = 0;
            File[] files = logs.listFiles((d, n) -> n.startsWith("worker-"));
            for (File f : files == null ? new File[0] : files) {
                List<String> text;
                try {
                    text = Files.readAllLines(f.toPath());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                boolean down = false;
                boolean upAfter = false;
                int last = 0;
                for (String line : text) {
                    Matcher m = METRICS.matcher(line);
                    if (m.find()) {
                        long at = Long.parseLong(m.group(1));
                        int threads = Integer.parseInt(m.group(3));
                        last = threads;
                        if (at < from) {
                            threadsBefore = Math.max(threadsBefore, threads);
                        } else {
                            threadsAfter = Math.max(threadsAfter, threads);
                        }
                        if (at >= from && at <= to && m.group(2).equals("DOWN")) {
                            down = true;
                        }
                        if (at > to && m.group(2).equals("UP")) {
                            upAfter = true;
                        }
                        continue;
                    }
                    Matcher l = LOG_LINE.matcher(line);
                    if (l.find()) {
                        long at = LocalTime.parse(l.group(1)).atDate(Instant.ofEpochMilli(from).atZone(ZoneId.systemDefault())
                                .toLocalDate()).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
                        if (at >= from && at <= to) {
                            lines++;
                        }
                    }
                }
                threadsAtEnd = Math.max(threadsAtEnd, last);
                allDown &= down;
                allUpAfter &= upAfter;
            }
            return new Outage(allDown, allUpAfter, lines, (to - from) / 1000.0, threadsBefore, threadsAfter, threadsAtEnd);
        }

        @Override
        public String toString() {
            return "readiness DOWN on every worker " + everyWorkerDown + ", UP again " + everyWorkerUpAfter + "; " + logLines
                    + " log lines in " + String.format("%.1f", seconds) + " s (all workers); live threads per worker at most "
                    + threadsBefore + " before the fault, " + threadsMaxAfter + " after, " + threadsAtEnd + " at the end";
        }
    }

    private static void say(String what) {
        System.out.printf("%tT failover: %s%n", System.currentTimeMillis(), what);
        System.out.flush();
    }
}
