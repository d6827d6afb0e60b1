package io.gendurable.chaos;

import io.gendurable.SignalResult;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The end-of-run checks, read from the engine's rows, the step log and the commit log. Each
 * check adds a line of counts to the report and, when it fails, a violation.
 */
public final class Invariants {
    private static final String E = ChaosSchema.ENGINE;

    private final DataSource ds;
    private final List<String> lines = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();

    /** The outcome of the checks. @param lines counts, one per check @param violations what failed */
    public record Report(List<String> lines, List<String> violations) {
        /** @return whether every check passed */
        public boolean passed() {
            return violations.isEmpty();
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            lines.forEach(l -> b.append("  ").append(l).append('\n'));
            if (violations.isEmpty()) {
                b.append("  ALL INVARIANTS HOLD\n");
            } else {
                violations.forEach(v -> b.append("  VIOLATION: ").append(v).append('\n'));
            }
            return b.toString();
        }
    }

    private record Row(long id, String fsm, String status, String key, Long parent, String paid, Integer seq,
                       Integer children) {
    }

    /** @param ds a pool on the chaos database */
    public Invariants(DataSource ds) {
        this.ds = ds;
    }

    /**
     * Runs every check.
     *
     * @param orders       the orders the driver inserted
     * @param parents      the parents the driver inserted
     * @param firstSignals each order's first payment signal's result
     * @param gate         what the gate probe saw
     * @return the report
     */
    public Report check(List<Integer> orders, List<Integer> parents, Map<Integer, SignalResult> firstSignals,
                        GateProbe.Stats gate) {
        List<Row> rows = rows();
        terminalWithExpectedState(rows, orders, parents);
        everyStepLogged(rows);
        noDoubleCommit(rows);
        noInstanceRunTwiceAtOnce();
        noK1Overlap();
        gateNeverOverAdmitted(gate);
        noSignalLost(orders, firstSignals);
        nothingLeftExecuting();
        return new Report(List.copyOf(lines), List.copyOf(violations));
    }

    private void terminalWithExpectedState(List<Row> rows, List<Integer> orders, List<Integer> parents) {
        Map<String, List<Row>> byKey = new HashMap<>();
        Map<Long, List<Row>> byParent = new HashMap<>();
        for (Row r : rows) {
            if (r.key() != null) {
                byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
            }
            if (r.parent() != null) {
                byParent.computeIfAbsent(r.parent(), k -> new ArrayList<>()).add(r);
            }
        }
        int ok = 0;
        for (int n : orders) {
            List<Row> rs = byKey.getOrDefault(Workload.orderKey(n), List.of());
            if (rs.size() != 1) {
                violate("order " + n + " has " + rs.size() + " rows");
                continue;
            }
            Row r = rs.get(0);
            if (!r.status().equals("done") || !Workload.payment(n).equals(r.paid()) || !Integer.valueOf(4).equals(r.seq())) {
                violate("order " + n + " (id " + r.id() + ") ended " + r.status() + " paid=" + r.paid() + " seq=" + r.seq());
            } else {
                ok++;
            }
        }
        int parentsOk = 0;
        int childrenOk = 0;
        for (int n : parents) {
            List<Row> rs = byKey.getOrDefault(Workload.parentKey(n), List.of());
            if (rs.size() != 1) {
                violate("parent " + n + " has " + rs.size() + " rows");
                continue;
            }
            Row p = rs.get(0);
            if (!p.status().equals("done") || !Integer.valueOf(2).equals(p.seq())
                    || !Integer.valueOf(ChaosParent.CHILDREN).equals(p.children())) {
                violate("parent " + n + " (id " + p.id() + ") ended " + p.status() + " seq=" + p.seq() + " children=" + p.children());
            } else {
                parentsOk++;
            }
            List<Row> kids = byParent.getOrDefault(p.id(), List.of());
            if (kids.size() != ChaosParent.CHILDREN) {
                violate("parent " + n + " has " + kids.size() + " child rows");
            }
            for (Row k : kids) {
                if (!k.status().equals("done") || !Integer.valueOf(2).equals(k.seq())) {
                    violate("child " + k.id() + " of parent " + n + " ended " + k.status() + " seq=" + k.seq());
                } else {
                    childrenOk++;
                }
            }
        }
        int expected = orders.size() + parents.size() * (1 + ChaosParent.CHILDREN);
        if (rows.size() != expected) {
            violate(rows.size() + " instance rows, expected " + expected);
        }
        lines.add("instances: " + rows.size() + " rows; orders done as expected " + ok + "/" + orders.size()
                + ", parents " + parentsOk + "/" + parents.size() + ", children " + childrenOk + "/"
                + parents.size() * ChaosParent.CHILDREN);
    }

    private void everyStepLogged(List<Row> rows) {
        Map<Long, Set<String>> ended = new HashMap<>();
        long executions = 0;
        long reExecutions = 0;
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT instance_id, step, count(*) FROM " + ChaosSchema.LOG
                     + " WHERE phase = 'begin' GROUP BY 1, 2")) {
            while (rs.next()) {
                ended.computeIfAbsent(rs.getLong(1), k -> new HashSet<>()).add(rs.getString(2));
                executions += rs.getLong(3);
                reExecutions += rs.getLong(3) - 1;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        Map<Long, Set<String>> finished = endedSteps();
        long expected = 0;
        long missing = 0;
        for (Row r : rows) {
            List<String> steps = switch (r.fsm()) {
                case "chaos-order" -> ChaosOrder.STEPS;
                case "chaos-parent" -> ChaosParent.STEPS;
                default -> ChaosChild.STEPS;
            };
            for (String step : steps) {
                expected++;
                if (!finished.getOrDefault(r.id(), Set.of()).contains(step)) {
                    missing++;
                    if (missing <= 10) {
                        violate("instance " + r.id() + " (" + r.fsm() + ") has no completed execution of step " + step);
                    }
                }
            }
        }
        if (missing > 10) {
            violate((missing - 10) + " more steps never completed");
        }
        lines.add("steps: " + expected + " expected, all ran at least once: " + (missing == 0) + "; " + executions
                + " executions began, " + reExecutions + " of them re-executions (at-least-once)");
    }

    private Map<Long, Set<String>> endedSteps() {
        Map<Long, Set<String>> m = new HashMap<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT DISTINCT instance_id, step FROM " + ChaosSchema.LOG + " WHERE phase = 'end'")) {
            while (rs.next()) {
                m.computeIfAbsent(rs.getLong(1), k -> new HashSet<>()).add(rs.getString(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return m;
    }

    private void noDoubleCommit(List<Row> rows) {
        long twice = count("SELECT count(*) FROM (SELECT 1 FROM " + ChaosSchema.COMMITS
                + " GROUP BY instance_id, from_step, from_seq HAVING count(*) > 1) d");
        long commits = count("SELECT count(*) FROM " + ChaosSchema.COMMITS);
        long skipped = count("SELECT count(*) FROM " + ChaosSchema.COMMITS
                + " WHERE to_status NOT IN ('done', 'failed') AND to_seq IS DISTINCT FROM from_seq + 1");
        long expected = 0;
        for (Row r : rows) {
            expected += r.fsm().equals("chaos-order") ? ChaosOrder.STEPS.size()
                    : r.fsm().equals("chaos-parent") ? ChaosParent.STEPS.size() : ChaosChild.STEPS.size();
        }
        if (twice > 0) {
            violate(twice + " step outcomes committed more than once");
        }
        if (skipped > 0) {
            violate(skipped + " committed transitions did not advance seq by exactly one");
        }
        if (commits != expected) {
            violate(commits + " step outcomes committed, expected exactly " + expected);
        }
        lines.add("commits: " + commits + " step outcomes committed (expected exactly " + expected
                + "), committed twice: " + twice);
    }

    private static final String EXECUTIONS = """
            WITH ex AS (
                SELECT exec, key, min(at) FILTER (WHERE phase = 'begin') AS b, min(at) FILTER (WHERE phase = 'end') AS e
                FROM %s WHERE key LIKE '%s' GROUP BY exec, key
            ), done AS (SELECT * FROM ex WHERE b IS NOT NULL AND e IS NOT NULL)
            """;

    /** One row, one claim at a time: two executions of one instance overlapping means a live claim was taken away. */
    private void noInstanceRunTwiceAtOnce() {
        String sql = """
                WITH ex AS (
                    SELECT exec, instance_id, min(at) FILTER (WHERE phase = 'begin') AS b, min(at) FILTER (WHERE phase = 'end') AS e
                    FROM %s GROUP BY exec, instance_id
                ), done AS (SELECT * FROM ex WHERE b IS NOT NULL AND e IS NOT NULL)
                SELECT count(*) FROM (
                    SELECT b, max(e) OVER (PARTITION BY instance_id ORDER BY b, exec
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                    FROM done) x
                WHERE b < prev_end
                """.formatted(ChaosSchema.LOG);
        long overlaps = count(sql);
        if (overlaps > 0) {
            violate(overlaps + " executions overlapped an earlier execution of the same instance");
        }
        lines.add("claims: executions overlapping another of the same instance: " + overlaps);
    }

    private void noK1Overlap() {
        String with = EXECUTIONS.formatted(ChaosSchema.LOG, "acct:%");
        long execs = count(with + "SELECT count(*) FROM done");
        // an execution overlaps an earlier one of its key iff it began before the latest end so far
        long overlaps = count(with + """
                SELECT count(*) FROM (
                    SELECT b, max(e) OVER (PARTITION BY key ORDER BY b, exec
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                    FROM done) x
                WHERE b < prev_end
                """);
        if (overlaps > 0) {
            violate(overlaps + " executions overlapped an earlier one under the same K = 1 key");
        }
        lines.add("K=1: " + execs + " completed executions under " + Workload.ACCOUNTS + " keys, overlapping: " + overlaps);
    }

    private void gateNeverOverAdmitted(GateProbe.Stats probe) {
        String with = EXECUTIONS.formatted(ChaosSchema.LOG, ChaosChild.GATE + ":%");
        long execs = count(with + "SELECT count(*) FROM done");
        // a sweep over begin (+1) and end (-1) events; at equal instants the end counts first
        long peak = count(with + """
                SELECT coalesce(max(running), 0) FROM (
                    SELECT sum(d) OVER (PARTITION BY key ORDER BY t, d ROWS UNBOUNDED PRECEDING) AS running
                    FROM (SELECT key, b AS t, 1 AS d FROM done UNION ALL SELECT key, e, -1 FROM done) ev) x
                """);
        if (peak > ChaosChild.GATE_LIMIT) {
            violate("gate " + ChaosChild.GATE + " ran " + peak + " executions at once (limit " + ChaosChild.GATE_LIMIT + ")");
        }
        if (probe.overCredited() > 0) {
            violate(probe.overCredited() + " gate samples had more free slots plus holders than the capacity");
        }
        if (probe.finalLeak() != 0) {
            violate("gate " + ChaosChild.GATE_KEY + " ended " + probe.finalLeak() + " slots short of its capacity");
        }
        lines.add("gate: " + execs + " completed executions, peak at once " + peak + " (limit " + ChaosChild.GATE_LIMIT
                + "); counter samples " + probe.samples() + ", with leaked slots " + probe.leaking() + " (max "
                + probe.maxLeak() + ", healed by the reconciler), over-credited " + probe.overCredited()
                + "; at the end: " + probe.finalState());
    }

    private void noSignalLost(List<Integer> orders, Map<Integer, SignalResult> firstSignals) {
        Map<SignalResult, Integer> results = new HashMap<>();
        firstSignals.values().forEach(r -> results.merge(r, 1, Integer::sum));
        int noTarget = results.getOrDefault(SignalResult.NO_TARGET, 0);
        if (noTarget > 0) {
            violate(noTarget + " payment signals found no live order");
        }
        if (firstSignals.size() != orders.size()) {
            violate(firstSignals.size() + " payment signals sent for " + orders.size() + " orders");
        }
        long left = count("SELECT count(*) FROM " + E + ".signals");
        if (left > 0) {
            violate(left + " signals left unconsumed in inboxes");
        }
        lines.add("signals: " + firstSignals.size() + " payments sent " + results + ", left in inboxes: " + left
                + " (each order's result carries its own payment: checked above)");
    }

    private void nothingLeftExecuting() {
        long executing = count("SELECT count(*) FROM " + E + ".gen_durable WHERE status = 'executing' OR locked_by IS NOT NULL");
        long live = count("SELECT count(*) FROM " + E + ".gen_durable WHERE status NOT IN ('done', 'failed')");
        if (executing > 0) {
            violate(executing + " rows still executing or locked after the leases expired");
        }
        lines.add("leases: rows executing or locked at the end: " + executing + ", non-terminal rows: " + live);
    }

    private List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, fsm, status::text, correlation_key, parent_id, result ->> 'paid',"
                     + " (result ->> 'seq')::int, (result ->> 'children')::int FROM " + E + ".gen_durable")) {
            while (rs.next()) {
                long parent = rs.getLong(5);
                Long parentId = rs.wasNull() ? null : parent;
                int seq = rs.getInt(7);
                Integer seqV = rs.wasNull() ? null : seq;
                int kids = rs.getInt(8);
                Integer kidsV = rs.wasNull() ? null : kids;
                rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), parentId,
                        rs.getString(6), seqV, kidsV));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    private long count(String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private void violate(String what) {
        violations.add(what);
    }
}
