package io.gendurable.chaos;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A pg_auto_failover cluster on loopback, started by the test: a monitor and two PostgreSQL nodes,
 * {@code node1} (the first primary) and {@code node2} (its synchronous standby: pg_auto_failover
 * sets {@code synchronous_standby_names = 'ANY 1 (...)'} while the standby is healthy), each run by
 * its own {@code pg_autoctl run} supervisor. The faults: {@link #killNode} (kill -9 of the node's
 * supervisor and of its PostgreSQL: the whole node lost) and {@link #killPostgres} (kill -9 of the
 * postmaster only: the supervisor restarts it).
 *
 * <p>pg_autoctl refuses to run as root: as root, every command runs as the OS user {@code postgres}
 * ({@code setpriv}), in a base directory it owns. The monitor's health checks and the demote
 * timeout are shortened for the test (the defaults put a failover at about 45 s; see
 * docs/reliability.md), as is the keepers' network partition timeout, which must stay below the
 * monitor's demote timeout (a primary cut off from the monitor and its standby demotes itself
 * before the monitor promotes the standby).
 */
public final class FailoverCluster implements AutoCloseable {
    /** The node names. */
    public static final List<String> NODES = List.of("node1", "node2");

    private static final String BIN = System.getProperty("failover.pg.bin", "/usr/lib/postgresql/15/bin");
    private static final String OS_USER = "postgres";

    private File base;
    private final int monitorPort;
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final Map<String, Process> supervisors = new LinkedHashMap<>();
    private Process monitor;

    /**
     * @param base      a fresh directory for the cluster (wiped first)
     * @param firstPort the monitor's port; the nodes take the next free ones
     */
    public FailoverCluster(File base, int firstPort) {
        this.base = base.getAbsoluteFile();
        this.monitorPort = freePortFrom(firstPort);
        int p = monitorPort + 1;
        for (String n : NODES) {
            p = freePortFrom(p);
            ports.put(n, p);
            p++;
        }
    }

    /** @return why this machine cannot run the cluster, or null when it can */
    public static String unavailable() {
        if (pgAutoctl() == null) {
            return "pg_autoctl is not installed (apt-get install postgresql-15-auto-failover)";
        }
        if (!new File(BIN, "pg_ctl").canExecute()) {
            return "no " + BIN + "/pg_ctl (set -Dfailover.pg.bin)";
        }
        return null;
    }

    private static String pgAutoctl() {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/bin:" + BIN).split(":")) {
            File f = new File(dir, "pg_autoctl");
            if (f.canExecute()) {
                return f.getPath();
            }
        }
        return null;
    }

    /** Creates and starts the monitor and both nodes; returns once node1 is primary and node2 its secondary. */
    public void start(long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        deleteRecursively(base);
        if (!base.mkdirs() && !base.isDirectory()) {
            throw new IOException("cannot create " + base);
        }
        chown(base);
        if (!usableByOsUser(base)) {
            // a workspace under a home directory the OS user cannot enter (mode 700): the temporary directory
            File tmp = Files.createTempDirectory("gendurable-failover-").toFile();
            System.out.println("failover cluster: " + OS_USER + " cannot write " + base + "; using " + tmp);
            base = tmp;
            chown(base);
        }
        run(List.of("create", "monitor", "--pgdata", pgdata("monitor").getPath(), "--pgport", Integer.toString(monitorPort),
                "--hostname", "127.0.0.1", "--auth", "trust", "--no-ssl", "--pgctl", BIN + "/pg_ctl"), "monitor-create");
        monitor = launch("monitor", List.of("run", "--pgdata", pgdata("monitor").getPath()));
        awaitSql(monitorUrl(), deadline);
        try (Connection c = DriverManager.getConnection(monitorUrl()); Statement s = c.createStatement()) {
            // detection in about 3 s instead of 20 s, and the demote wait (the old primary's chance to
            // demote itself) 6 s instead of 30 s
            s.execute("ALTER SYSTEM SET pgautofailover.health_check_period = 1000");
            s.execute("ALTER SYSTEM SET pgautofailover.health_check_timeout = 1000");
            s.execute("ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 500");
            s.execute("ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1");
            s.execute("ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 3000");
            s.execute("ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 6000");
            s.execute("SELECT pg_reload_conf()");
        }
        String monitorUri = "postgres://autoctl_node@127.0.0.1:" + monitorPort + "/pg_auto_failover?sslmode=disable";
        for (String n : NODES) {
            String pgdata = pgdata(n).getPath();
            run(List.of("create", "postgres", "--pgdata", pgdata, "--pgport", Integer.toString(ports.get(n)),
                    "--hostname", "127.0.0.1", "--listen", "127.0.0.1", "--name", n, "--auth", "trust", "--no-ssl",
                    "--monitor", monitorUri, "--dbname", "postgres", "--pgctl", BIN + "/pg_ctl"), n + "-create");
            run(List.of("config", "set", "--pgdata", pgdata, "timeout.network_partition_timeout", "3"), n + "-config");
            supervisors.put(n, launch(n, List.of("run", "--pgdata", pgdata)));
            if (n.equals(NODES.get(0))) {
                awaitStates(Map.of(n, "single"), deadline);
            }
        }
        awaitStates(Map.of(NODES.get(0), "primary", NODES.get(1), "secondary"), deadline);
        // the monitor's own account of the standby becoming synchronous is not what commits wait
        // for: wait until the primary itself lists it as a quorum (synchronous) standby
        while (!syncStandbyStreaming(NODES.get(0))) {
            check(deadline, "the synchronous standby streaming");
            Thread.sleep(200);
        }
    }

    /** @return the multi-host JDBC URL of both nodes, for the primary, user postgres, plus {@code extra} parameters */
    public String url(String extra) {
        StringBuilder b = new StringBuilder("jdbc:postgresql://");
        ports.values().forEach(p -> b.append("127.0.0.1:").append(p).append(','));
        b.setLength(b.length() - 1);
        b.append("/postgres?user=postgres&targetServerType=primary");
        if (extra != null && !extra.isEmpty()) {
            b.append('&').append(extra);
        }
        return b.toString();
    }

    /** @return a direct JDBC URL of one node */
    public String nodeUrl(String node) {
        return "jdbc:postgresql://127.0.0.1:" + ports.get(node) + "/postgres?user=postgres&connectTimeout=2&socketTimeout=5";
    }

    /** @return the monitor's JDBC URL */
    public String monitorUrl() {
        return "jdbc:postgresql://127.0.0.1:" + monitorPort + "/pg_auto_failover?user=postgres&connectTimeout=2&socketTimeout=5";
    }

    /** @return node name → {reported state, goal state}, from the monitor */
    public Map<String, String[]> states() throws SQLException {
        Map<String, String[]> m = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(monitorUrl()); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodeid")) {
            while (rs.next()) {
                m.put(rs.getString(1), new String[] {rs.getString(2), rs.getString(3)});
            }
        }
        return m;
    }

    /** @return the monitor's states as one line, for logs */
    public String describe() {
        try {
            StringBuilder b = new StringBuilder();
            states().forEach((n, s) -> b.append(n).append('=').append(s[0]).append('/').append(s[1]).append(' '));
            return b.toString().trim();
        } catch (SQLException e) {
            return "monitor unreachable: " + e.getMessage();
        }
    }

    /** @return the node currently primary by the monitor's account (reported and goal), or null */
    public String primary() throws SQLException {
        for (Map.Entry<String, String[]> e : states().entrySet()) {
            String[] s = e.getValue();
            if (s[0].equals(s[1]) && (s[0].equals("primary") || s[0].equals("wait_primary") || s[0].equals("single"))) {
                return e.getKey();
            }
        }
        return null;
    }

    /**
     * The whole node lost: kill -9 of its supervisor's processes and of its PostgreSQL (postmaster
     * and backends), in one {@code kill} call, supervisors first.
     *
     * @return when the signals were sent (epoch millis, before the call)
     */
    public long killNode(String node) throws Exception {
        Process p = supervisors.get(node);
        List<Long> pids = treeOf(node);
        long at = System.currentTimeMillis();
        kill("KILL", pids);
        p.waitFor(10, TimeUnit.SECONDS);
        ChaosDatabase.waitGone(pids, 10_000);
        return at;
    }

    /**
     * The old primary alive but cut off: SIGSTOP of the node's supervisor and PostgreSQL. Its
     * sockets stay open and silent (no reset): a client waits on them until its own timeout. The
     * monitor sees the node fail its health checks and promotes the standby; {@link #thawNode}
     * wakes the old primary, read-write with its synchronous standby gone, until its supervisor
     * learns from the monitor that it is demoted.
     *
     * @return when the signals were sent (epoch millis, before the call)
     */
    public long freezeNode(String node) throws Exception {
        List<Long> pids = treeOf(node);
        long at = System.currentTimeMillis();
        kill("STOP", pids);
        frozen.put(node, pids);
        return at;
    }

    /** SIGCONT of what {@link #freezeNode} stopped. */
    public void thawNode(String node) {
        List<Long> pids = frozen.remove(node);
        if (pids != null) {
            kill("CONT", pids);
        }
    }

    private final Map<String, List<Long>> frozen = new LinkedHashMap<>();

    private List<Long> treeOf(String node) throws IOException {
        Process p = supervisors.get(node);
        List<Long> pids = new ArrayList<>();
        pids.add(p.pid());
        List<ProcessHandle> descendants = p.descendants().toList();
        // the supervisor's own sub-processes first, then PostgreSQL's
        descendants.stream().filter(h -> h.info().command().map(c -> c.contains("pg_autoctl")).orElse(false))
                .forEach(h -> pids.add(h.pid()));
        descendants.stream().filter(h -> !pids.contains(h.pid())).forEach(h -> pids.add(h.pid()));
        long pm = postmasterPid(node);
        if (pm > 0 && !pids.contains(pm)) {
            pids.add(pm);
        }
        return pids;
    }

    /**
     * kill -9 of the node's postmaster only: its supervisor sees PostgreSQL gone and starts it again.
     *
     * @return when the signal was sent (epoch millis, before the call)
     */
    public long killPostgres(String node) throws Exception {
        long pm = postmasterPid(node);
        long at = System.currentTimeMillis();
        kill("KILL", List.of(pm));
        return at;
    }

    /**
     * Waits until {@code node} is the primary by the monitor's account and accepts writes.
     *
     * @return when it first did (epoch millis)
     */
    public long awaitWritablePrimary(String node, long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            if (node.equals(primary()) && writable(node)) {
                return System.currentTimeMillis();
            }
            check(deadline, node + " the writable primary (" + describe() + ")");
            Thread.sleep(100);
        }
    }

    /** @return whether the node accepts a connection and is a read-write primary */
    public boolean writable(String node) {
        try (Connection c = DriverManager.getConnection(nodeUrl(node)); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'")) {
            rs.next();
            return rs.getBoolean(1);
        } catch (SQLException e) {
            return false;
        }
    }

    private boolean syncStandbyStreaming(String primary) {
        try (Connection c = DriverManager.getConnection(nodeUrl(primary)); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
                     + " AND sync_state IN ('sync', 'quorum') AND current_setting('synchronous_standby_names') <> ''")) {
            rs.next();
            return rs.getLong(1) > 0;
        } catch (SQLException e) {
            return false;
        }
    }

    private void awaitStates(Map<String, String> want, long deadline) throws Exception {
        while (true) {
            Map<String, String[]> s;
            try {
                s = states();
            } catch (SQLException e) {
                s = Map.of();
            }
            boolean ok = true;
            for (Map.Entry<String, String> w : want.entrySet()) {
                String[] got = s.get(w.getKey());
                ok &= got != null && got[0].equals(w.getValue()) && got[1].equals(w.getValue());
            }
            if (ok) {
                return;
            }
            check(deadline, "states " + want + " (" + describe() + ")");
            Thread.sleep(200);
        }
    }

    private void check(long deadline, String what) {
        if (System.currentTimeMillis() > deadline) {
            throw new IllegalStateException("pg_auto_failover cluster: timed out waiting for " + what + "; logs in " + base);
        }
    }

    private static void awaitSql(String url, long deadline) throws InterruptedException {
        while (true) {
            try (Connection c = DriverManager.getConnection(url)) {
                return;
            } catch (SQLException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("no answer from " + url + ": " + e.getMessage());
                }
                Thread.sleep(200);
            }
        }
    }

    private long postmasterPid(String node) throws IOException {
        File f = new File(pgdata(node), "postmaster.pid");
        if (!f.exists()) {
            return -1;
        }
        return Long.parseLong(Files.readAllLines(f.toPath()).get(0).trim());
    }

    private File pgdata(String name) {
        return new File(base, name);
    }

    /** @return the log file of a supervisor or command */
    public File log(String name) {
        return new File(base, name + ".log");
    }

    private ProcessBuilder builder(List<String> args) {
        List<String> cmd = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            cmd.addAll(List.of("setpriv", "--reuid=" + OS_USER, "--regid=" + OS_USER, "--init-groups"));
        }
        cmd.add(pgAutoctl());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(base);
        Map<String, String> env = pb.environment();
        env.clear();
        env.put("PATH", BIN + ":/usr/bin:/bin");
        env.put("HOME", base.getPath());
        env.put("XDG_CONFIG_HOME", new File(base, "config").getPath());
        env.put("XDG_DATA_HOME", new File(base, "share").getPath());
        env.put("XDG_RUNTIME_DIR", new File(base, "run").getPath());
        env.put("LANG", "C.UTF-8");
        return pb;
    }

    private void run(List<String> args, String logName) throws Exception {
        Process p = builder(args).redirectErrorStream(true).redirectOutput(log(logName)).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("pg_autoctl " + String.join(" ", args) + " did not end; see " + log(logName));
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("pg_autoctl " + String.join(" ", args) + " exited with " + p.exitValue()
                    + ": " + tail(log(logName)));
        }
    }

    private Process launch(String name, List<String> args) throws IOException {
        return builder(args).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log(name))).start();
    }

    private static String tail(File f) {
        try {
            List<String> lines = Files.readAllLines(f.toPath());
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** Stops every supervisor (SIGTERM: each stops its PostgreSQL), kill -9 after 20 s, and leaves the logs. */
    @Override
    public void close() {
        new ArrayList<>(frozen.keySet()).forEach(this::thawNode);
        List<Process> all = new ArrayList<>(supervisors.values());
        if (monitor != null) {
            all.add(monitor);
        }
        List<Long> postmasters = new ArrayList<>();
        for (String n : List.of("monitor", NODES.get(0), NODES.get(1))) {
            try {
                long pm = postmasterPid(n);
                if (pm > 0) {
                    postmasters.add(pm);
                }
            } catch (IOException | RuntimeException ignored) {
                // no server there
            }
        }
        all.forEach(Process::destroy);
        for (Process p : all) {
            try {
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // a PostgreSQL whose supervisor was killed is nobody's child: stop it here
        List<Long> left = postmasters.stream().filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).toList();
        if (!left.isEmpty()) {
            kill("KILL", left);
            ChaosDatabase.waitGone(left, 10_000);
        }
    }

    private static void kill(String sig, List<Long> pids) {
        List<String> cmd = new ArrayList<>(List.of("kill", "-" + sig));
        pids.forEach(p -> cmd.add(Long.toString(p)));
        try {
            new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return whether the OS user the cluster runs as can write in {@code dir} */
    private static boolean usableByOsUser(File dir) throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            return dir.canWrite();
        }
        Process p = new ProcessBuilder("setpriv", "--reuid=" + OS_USER, "--regid=" + OS_USER, "--init-groups",
                "test", "-w", dir.getPath(), "-a", "-x", dir.getPath()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return p.waitFor() == 0;
    }

    private static void chown(File f) throws Exception {
        if ("root".equals(System.getProperty("user.name"))) {
            Process p = new ProcessBuilder("chown", "-R", OS_USER + ":" + OS_USER, f.getPath()).inheritIO().start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("chown " + f + " failed");
            }
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

    private static int freePortFrom(int from) {
        for (int p = from; p < from + 200; p++) {
            try (ServerSocket s = new ServerSocket(p, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
                return p;
            } catch (IOException busy) {
                // next
            }
        }
        throw new IllegalStateException("no free port from " + from);
    }
}
