package io.gendurable.chaos;

import io.gendurable.StepContext;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;

/**
 * The append-only log the chaos FSMs write from inside their steps, on their own connection and
 * autocommit transaction, before they return an outcome: a {@code begin} entry when a step
 * execution starts and an {@code end} entry when its work is over. At-least-once execution shows
 * up as several executions of one step; the checks read the intervals for K = 1 and gate overlap.
 * Timestamps come from this JVM's clock (every worker runs on the same machine), taken after the
 * begin insert returned and before the end insert, so a slow insert never widens an interval.
 */
public final class StepLog {
    private static final String INSERT = "INSERT INTO " + ChaosSchema.LOG
            + " (exec, instance_id, fsm, step, attempt, node, phase, key, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private final DataSource dataSource;
    private final String node;

    /** One step execution, between its begin and end entries. */
    public record Execution(UUID exec, long id, String fsm, String step, int attempt, String key) {
        /** @return the execution id as the FSMs put it in the state they return ({@code by}) */
        public String by() {
            return exec.toString();
        }
    }

    /** @param dataSource the log's own pool @param node the worker's node id */
    public StepLog(DataSource dataSource, String node) {
        this.dataSource = dataSource;
        this.node = node;
    }

    /** Writes the begin entry; a failure throws, and the step fails (it will run again). */
    public Execution begin(StepContext ctx) {
        Execution e = new Execution(UUID.randomUUID(), ctx.id(), ctx.fsm(), ctx.step(), ctx.attempt(),
                ctx.concurrencyKey().orElse(null));
        write(e, "begin", null);
        return e;
    }

    /** Writes the end entry, stamped now (before the insert). */
    public void end(Execution e) {
        write(e, "end", Instant.now());
    }

    private void write(Execution e, String phase, Instant at) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(INSERT)) {
            c.setAutoCommit(true);
            ps.setObject(1, e.exec());
            ps.setLong(2, e.id());
            ps.setString(3, e.fsm());
            ps.setString(4, e.step());
            ps.setInt(5, e.attempt());
            ps.setString(6, node);
            ps.setString(7, phase);
            ps.setString(8, e.key());
            // begin: stamped after the connection was obtained, right before the row goes out
            ps.setObject(9, OffsetDateTime.ofInstant(at == null ? Instant.now() : at, ZoneOffset.UTC));
            ps.executeUpdate();
        } catch (SQLException ex) {
            throw new IllegalStateException("chaos step log: " + phase + " of " + e + " failed: " + ex.getMessage(), ex);
        }
    }

    /** The system property naming the directory of hold flags (the run's log directory). */
    public static final String HOLD_DIR = "chaos.hold.dir";

    /**
     * @param dir the hold directory @param id an instance id
     * @return the flag file that keeps a step of that instance working (see {@link #hold})
     */
    public static java.io.File holdFlag(java.io.File dir, long id) {
        return new java.io.File(dir, "hold-" + id);
    }

    /**
     * Writes a hold flag.
     *
     * @param flag  the flag file
     * @param nodes {@code "only:<node>"} (hold that node's executions) or {@code "except:<node>"} (every other node's)
     */
    public static void setHold(java.io.File flag, String nodes) {
        try {
            java.nio.file.Files.writeString(flag.toPath(), nodes);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * A step that is slow at the worst moment: while the saboteur's flag file for this instance
     * exists and names this node (at most 10 s of this JVM's running time), the step keeps
     * working, through a SIGSTOP and past the wake. The saboteur holds the steps a frozen worker
     * runs before an undeploy (so that the drain after the wake still finds the rows buffered
     * behind them), and the other nodes' re-runs of a frozen worker's rows (so that its late
     * outcomes meet rows executing under a newer claim, where only the guard can refuse them).
     */
    public void hold(long id) {
        String dir = System.getProperty(HOLD_DIR);
        if (dir == null) {
            return;
        }
        java.io.File flag = holdFlag(new java.io.File(dir), id);
        for (int i = 0; i < 500 && holds(flag); i++) {
            work(20, 20);
        }
    }

    private boolean holds(java.io.File flag) {
        if (!flag.exists()) {
            return false;
        }
        String nodes;
        try {
            nodes = java.nio.file.Files.readString(flag.toPath());
        } catch (java.io.IOException e) {
            return false;  // no flag (or gone)
        }
        return nodes.equals("only:" + node) || (nodes.startsWith("except:") && !nodes.equals("except:" + node));
    }

    /** Sleeps a few milliseconds: the step's "work", long enough for overlaps to be observable. */
    public static void work(int minMillis, int maxMillis) {
        try {
            Thread.sleep(minMillis + java.util.concurrent.ThreadLocalRandom.current().nextInt(maxMillis - minMillis + 1));
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }
}
