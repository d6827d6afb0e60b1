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
                       Integer children, String woke, String nudge) {
    }

    /** What the driver did, for the checks. */
    public record Inputs(List<Integer> orders, List<Integer> parents, List<Integer> flows,
                         Map<Integer, SignalResult> firstSignals, Set<Integer> firstSignalsRetried,
                         Map<Integer, SignalResult> nudges, GateProbe.Stats gate,
                         List<Saboteur.Pause> pauses, Map<String, long[]> staleByPause) {
    }

    /** @param ds a pool on the chaos database */
    public Invariants(DataSource ds) {
        this.ds = ds;
    }

    /**
     * Runs every check.
     *
     * @param in what the driver inserted and signalled, what the gate probe saw, the worker pauses
     * @return the report
     */
    public Report check(Inputs in) {
        recordPauses(in.pauses());
        buildExecutions();
        List<Row> rows = rows();
        terminalWithExpectedState(rows, in.orders(), in.parents(), in.flows().size());
        flowsEnded(rows, in.flows(), in.nudges());
        everyStepLogged(rows);
        noDoubleCommit(rows);
        noInstanceRunTwiceAtOnce();
        noK1Overlap();
        gateNeverOverAdmitted(in.gate());
        commitsByLatestClaimOnly();
        fencingTokens();
        zombiesCommittedNothing(in.pauses(), in.staleByPause());
        noSignalLost(in.orders(), in.firstSignals(), in.firstSignalsRetried());
        nothingLeftExecuting();
        return new Report(List.copyOf(lines), List.copyOf(violations));
    }

    /** The pauses, for the SQL below. */
    private void recordPauses(List<Saboteur.Pause> pauses) {
        try (Connection c = ds.getConnection(); java.sql.PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + ChaosSchema.PAUSES + " (node, since, started_at, ended_at, undeploy, reaped) VALUES (?, ?, ?, ?, ?, ?)")) {
            c.setAutoCommit(true);
            c.createStatement().execute("DELETE FROM " + ChaosSchema.PAUSES);
            for (Saboteur.Pause p : pauses) {
                ps.setString(1, p.node());
                ps.setObject(2, at(p.since()));
                ps.setObject(3, at(p.startedAt()));
                ps.setObject(4, at(p.endedAt()));
                ps.setBoolean(5, p.undeploy());
                ps.setBoolean(6, p.reaped());
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static java.time.OffsetDateTime at(long epochMillis) {
        return java.time.OffsetDateTime.ofInstant(java.time.Instant.ofEpochMilli(epochMillis), java.time.ZoneOffset.UTC);
    }

    /**
     * {@code chaos.ex}: one row per step execution (begin, end), attributed to the claim it ran
     * under: the latest claim of its instance, by its node, at its step and attempt, logged before
     * it began (a claim commits before its step is dispatched, and every clock is this machine's).
     * An execution is a <b>zombie</b> when its node was paused (SIGSTOP) while it held that claim:
     * claimed by the paused incarnation before the pause and still the row's latest claim when the pause began, the
     * execution not ended before it (begun before, or started from the buffer after the wake). Zombies outlived their lease by construction (the documented "a step
     * outlives its lease"): they are left out of the overlap checks and checked on their own.
     */
    private void buildExecutions() {
        exec("""
                DROP TABLE IF EXISTS chaos.ex;
                CREATE TABLE chaos.ex AS
                WITH x AS (
                    SELECT exec, instance_id, fsm, step, attempt, node, key,
                           min(at) FILTER (WHERE phase = 'begin') AS b, min(at) FILTER (WHERE phase = 'end') AS e
                    FROM chaos.step_log GROUP BY exec, instance_id, fsm, step, attempt, node, key)
                SELECT x.*, k.seq AS claim_seq, k.at AS claim_at, z.started_at AS paused_at, z.ended_at AS woke_at,
                       z.reaped AS pause_reaped, z.started_at IS NOT NULL AS zombie
                FROM x LEFT JOIN LATERAL (
                    SELECT c.seq, c.at FROM chaos.claims c
                    WHERE c.instance_id = x.instance_id AND c.node = x.node AND c.step = x.step
                      AND c.attempt = x.attempt AND c.at <= x.b
                    ORDER BY c.seq DESC LIMIT 1) k ON true
                LEFT JOIN LATERAL (
                    -- a pause of its node that caught it holding the claim: still the row's latest
                    -- claim when the pause began, and the execution not over by then
                    SELECT p.started_at, p.ended_at, p.reaped FROM chaos.pauses p
                    WHERE p.node = x.node AND k.at > p.since AND k.at < p.started_at
                      AND coalesce(x.e, 'infinity') > p.started_at
                      AND NOT EXISTS (SELECT 1 FROM chaos.claims c2 WHERE c2.instance_id = x.instance_id
                                        AND c2.seq > k.seq AND c2.at < p.started_at)
                    ORDER BY p.started_at LIMIT 1) z ON true;
                CREATE INDEX ON chaos.ex (exec);
                ANALYZE chaos.ex;
                ANALYZE chaos.leaves;
                ANALYZE chaos.commits;
                """);
    }

    private void terminalWithExpectedState(List<Row> rows, List<Integer> orders, List<Integer> parents, int flows) {
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
        int expected = orders.size() + parents.size() * (1 + ChaosParent.CHILDREN) + flows;
        if (rows.size() != expected) {
            violate(rows.size() + " instance rows, expected " + expected);
        }
        lines.add("instances: " + rows.size() + " rows; orders done as expected " + ok + "/" + orders.size()
                + ", parents " + parentsOk + "/" + parents.size() + ", children " + childrenOk + "/"
                + parents.size() * ChaosParent.CHILDREN);
    }

    private void flowsEnded(List<Row> rows, List<Integer> flows, Map<Integer, SignalResult> nudges) {
        Map<String, List<Row>> byKey = new HashMap<>();
        for (Row r : rows) {
            if (r.key() != null) {
                byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
            }
        }
        int ok = 0;
        int bySignal = 0;
        int byTimeout = 0;
        for (int n : flows) {
            List<Row> rs = byKey.getOrDefault(Workload.flowKey(n), List.of());
            if (rs.size() != 1) {
                violate("flow " + n + " has " + rs.size() + " rows");
                continue;
            }
            Row r = rs.get(0);
            boolean woke = "timeout".equals(r.woke())
                    || ("signal".equals(r.woke()) && Workload.nudged(n) && Workload.nudge(n).equals(r.nudge()));
            if (!r.status().equals("done") || !Integer.valueOf(4).equals(r.seq()) || !woke) {
                violate("flow " + n + " (id " + r.id() + ", nudged " + Workload.nudged(n) + ") ended " + r.status()
                        + " seq=" + r.seq() + " woke=" + r.woke() + " nudge=" + r.nudge());
            } else {
                ok++;
                if ("signal".equals(r.woke())) {
                    bySignal++;
                } else {
                    byTimeout++;
                }
            }
        }
        long nudged = flows.stream().filter(Workload::nudged).count();
        if (nudges.size() != nudged) {
            violate(nudges.size() + " nudges sent for " + nudged + " nudged flows");
        }
        Map<SignalResult, Integer> results = new HashMap<>();
        nudges.values().forEach(r -> results.merge(r, 1, Integer::sum));
        long inlineContinues = count("SELECT count(*) FROM " + ChaosSchema.CLAIMS + " WHERE kind = 'continue'");
        lines.add("flows (inline, K=1, rate-limited, await with timeout): done as expected " + ok + "/" + flows.size()
                + "; woken by the nudge " + bySignal + ", by the await timeout " + byTimeout + "; nudges " + results
                + "; inline continues committed " + inlineContinues);
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
            List<String> steps = stepsOf(r.fsm());
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

    private static List<String> stepsOf(String fsm) {
        return switch (fsm) {
            case "chaos-order" -> ChaosOrder.STEPS;
            case "chaos-parent" -> ChaosParent.STEPS;
            case "chaos-flow" -> ChaosFlow.STEPS;
            default -> ChaosChild.STEPS;
        };
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
            expected += stepsOf(r.fsm()).size();
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

    // completed executions under some keys, zombies (see buildExecutions) left out
    private static final String EXECUTIONS = """
            WITH done AS (SELECT exec, key, b, e FROM chaos.ex
                          WHERE key LIKE '%2$s' AND b IS NOT NULL AND e IS NOT NULL AND NOT zombie)
            """;

    /** One row, one claim at a time: two executions of one instance overlapping means a live claim was taken away. */
    private void noInstanceRunTwiceAtOnce() {
        String sql = """
                WITH done AS (SELECT * FROM chaos.ex WHERE b IS NOT NULL AND e IS NOT NULL AND NOT zombie)
                SELECT count(*) FROM (
                    SELECT b, max(e) OVER (PARTITION BY instance_id ORDER BY b, exec
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                    FROM done) x
                WHERE b < prev_end
                """;
        long overlaps = count(sql);
        if (overlaps > 0) {
            violate(overlaps + " executions overlapped an earlier execution of the same instance");
        }
        lines.add("claims: executions overlapping another of the same instance: " + overlaps);
    }

    private void noK1Overlap() {
        String with = EXECUTIONS.formatted(ChaosSchema.LOG, "acct:%");
        String withFlows = EXECUTIONS.formatted(ChaosSchema.LOG, "flow:%");
        long execs = count(with + "SELECT count(*) FROM done");
        // an execution overlaps an earlier one of its key iff it began before the latest end so far
        long overlaps = count(with + """
                SELECT count(*) FROM (
                    SELECT b, max(e) OVER (PARTITION BY key ORDER BY b, exec
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                    FROM done) x
                WHERE b < prev_end
                """);
        long flowExecs = count(withFlows + "SELECT count(*) FROM done");
        overlaps += count(withFlows + """
                SELECT count(*) FROM (
                    SELECT b, max(e) OVER (PARTITION BY key ORDER BY b, exec
                                           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
                    FROM done) x
                WHERE b < prev_end
                """);
        if (overlaps > 0) {
            violate(overlaps + " executions overlapped an earlier one under the same K = 1 key");
        }
        lines.add("K=1: " + execs + " completed executions under " + Workload.ACCOUNTS + " acct keys and " + flowExecs
                + " under " + ChaosFlow.KEYS + " flow keys (zombies aside), overlapping: " + overlaps);
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
            violate(probe.overCredited() + (ChaosRedis.enabled()
                    ? " gate samples had fewer live holders in Redis than admitted rows with a live lease"
                    : " gate samples had more free slots plus holders than the capacity"));
        }
        if (probe.overLimit() > 0) {
            violate(probe.overLimit() + " gate samples saw more admitted executing rows than the limit " + ChaosChild.GATE_LIMIT
                    + " (max " + probe.maxHeld() + ")");
        }
        if (probe.finalLeak() != 0) {
            violate("gate " + ChaosChild.GATE_KEY + " ended " + probe.finalLeak() + " slots short of its capacity");
        }
        lines.add("gate: " + execs + " completed executions, peak at once " + peak + " (limit " + ChaosChild.GATE_LIMIT
                + ", zombies aside); counter samples " + probe.samples() + " (every " + GateProbe.INTERVAL_MILLIS
                + " ms), admitted holders at most " + probe.maxHeld() + ", above the limit " + probe.overLimit()
                + ", with leaked slots " + probe.leaking() + " (max "
                + probe.maxLeak() + (ChaosRedis.enabled() ? ", healed by their lease" : ", healed by the reconciler")
                + "), over-credited " + probe.overCredited()
                + "; at the end: " + probe.finalState());
    }

    // the execution's claim x.claim_seq was not the row's live claim when m committed: a later claim
    // superseded it, or it had already left executing (reaped, released) before the commit
    private static final String NOT_LIVE = """
            (x.claim_seq IS DISTINCT FROM m.claim_seq
             OR EXISTS (SELECT 1 FROM chaos.leaves l WHERE l.instance_id = m.instance_id AND l.claim_seq = x.claim_seq
                          AND l.at < m.at))
            """;

    /**
     * (b) No outcome committed by a claim that was not the row's latest: every committed step
     * outcome names the execution that produced it; that execution's claim must be the latest
     * claim of the row when the outcome committed. A late outcome of a reaped claim (a zombie's,
     * or an ABA re-claim by the same worker at the same attempt) that got past the engine's guard
     * fails here, whatever the row looks like afterwards.
     */
    private void commitsByLatestClaimOnly() {
        long commits = count("SELECT count(*) FROM " + ChaosSchema.COMMITS);
        long unattributed = count("SELECT count(*) FROM " + ChaosSchema.COMMITS
                + " m WHERE m.exec IS NULL OR NOT EXISTS (SELECT 1 FROM chaos.ex x WHERE x.exec = m.exec::uuid)");
        long notLatest = count("SELECT count(*) FROM " + ChaosSchema.COMMITS + " m JOIN chaos.ex x ON x.exec = m.exec::uuid WHERE "
                + NOT_LIVE);
        long noClaim = count("SELECT count(*) FROM chaos.ex WHERE claim_seq IS NULL");
        long claims = count("SELECT count(*) FROM " + ChaosSchema.CLAIMS);
        if (unattributed > 0) {
            violate(unattributed + " committed outcomes name no logged execution");
        }
        if (noClaim > 0) {
            violate(noClaim + " step executions match no logged claim (the claim log missed a claim)");
        }
        if (notLatest > 0) {
            violate(notLatest + " outcomes were committed by a claim that was not the row's live claim (superseded by a later"
                    + " claim, or already reaped or released): a stale claim's outcome got through");
        }
        lines.add("fencing: " + claims + " claims and inline continues logged; " + commits
                + " committed outcomes, each by its execution's claim; by a claim that was not the row's live one: " + notLatest
                + " (unattributed " + unattributed + ", executions without a claim " + noClaim + ")");
    }

    /**
     * The fencing token, when the engine has it ({@code claim_token}, Flyway V2): every claim and
     * inline continue stamps a fresh, never reused value; every transition out of (or continuing)
     * a claim carried the token of the row's latest claim; a row that leaves executing keeps none.
     * On a V1 schema the check says it was skipped.
     */
    private void fencingTokens() {
        if (!ChaosSchema.hasClaimToken(ds)) {
            lines.add("fencing tokens: no claim_token column in this engine's schema (V1): token checks skipped");
            return;
        }
        long nullTokens = count("SELECT count(*) FROM " + ChaosSchema.CLAIMS + " WHERE token IS NULL");
        long reused = count("SELECT count(*) - count(DISTINCT token) FROM " + ChaosSchema.CLAIMS + " WHERE token IS NOT NULL");
        long wrongOld = count("""
                SELECT count(*) FROM (SELECT claim_seq, old_token FROM %1$s UNION ALL SELECT claim_seq, old_token FROM %2$s) t
                LEFT JOIN %3$s c ON c.seq = t.claim_seq
                WHERE t.old_token IS DISTINCT FROM c.token
                """.formatted(ChaosSchema.COMMITS, ChaosSchema.LEAVES, ChaosSchema.CLAIMS));
        long kept = count("""
                SELECT count(*) FROM (SELECT to_status, new_token FROM %1$s UNION ALL SELECT to_status, new_token FROM %2$s) t
                WHERE t.to_status <> 'executing' AND t.new_token IS NOT NULL
                """.formatted(ChaosSchema.COMMITS, ChaosSchema.LEAVES));
        long left = count("SELECT count(*) FROM " + E + ".gen_durable WHERE status <> 'executing' AND claim_token IS NOT NULL");
        if (nullTokens > 0) {
            violate(nullTokens + " claims stamped no fencing token");
        }
        if (reused > 0) {
            violate(reused + " claims reused a fencing token of an earlier claim");
        }
        if (wrongOld > 0) {
            violate(wrongOld + " transitions out of a claim did not carry the token of the row's latest claim");
        }
        if (kept + left > 0) {
            violate((kept + left) + " rows left executing but kept a fencing token");
        }
        long leaves = count("SELECT count(*) FROM " + ChaosSchema.LEAVES);
        lines.add("fencing tokens (claim_token present): claims without a token " + nullTokens + ", reused " + reused
                + "; commits and " + leaves + " other exits from executing carrying another claim's token " + wrongOld
                + ", keeping a token " + (kept + left));
    }

    /**
     * Paused workers: the outcomes their zombie executions flushed after the wake (executions
     * whose claim was taken before the pause and that ended after it) must all have been refused
     * when their claim had been reaped or superseded by then (the saboteur waits until the rows it
     * saw held were reaped; a claim whose transaction the pause froze before its commit is not
     * visible to it, is never reaped, and may commit its outcome legitimately). The engine's own
     * count of stale outcomes on those nodes after their pause is reported beside.
     */
    private void zombiesCommittedNothing(List<Saboteur.Pause> pauses, Map<String, long[]> staleByPause) {
        String zombies = """
                FROM chaos.ex x LEFT JOIN %s m ON m.exec::uuid = x.exec
                WHERE x.zombie
                """.formatted(ChaosSchema.COMMITS);
        long executions = count("SELECT count(*) " + zombies);
        long fromBuffer = count("SELECT count(*) " + zombies + " AND x.b > x.woke_at");
        long flushed = count("SELECT count(*) " + zombies + " AND x.e IS NOT NULL");
        long committed = count("SELECT count(*) " + zombies + " AND m.seq IS NOT NULL");
        long committedAfterReap = count("SELECT count(*) " + zombies + " AND m.seq IS NOT NULL AND " + NOT_LIVE);
        if (committedAfterReap > 0) {
            violate(committedAfterReap + " outcomes of paused workers committed after their claims had been reaped or superseded");
        }
        long stale = staleByPause.values().stream().mapToLong(v -> v[0]).sum();
        long reaped = pauses.stream().filter(Saboteur.Pause::reaped).count();
        lines.add("zombies: " + pauses.size() + " pauses (" + pauses.stream().filter(Saboteur.Pause::undeploy).count()
                + " woken into an undeploy), claims held at the pauses " + pauses.stream().mapToInt(Saboteur.Pause::claimsHeld).sum()
                + " (admitted children not started " + pauses.stream().mapToInt(Saboteur.Pause::bufferedGated).sum()
                + "), every claim reaped before the wake in " + reaped + "/" + pauses.size() + "; zombie executions "
                + executions + " (" + fromBuffer + " started from the buffer after the wake); outcomes flushed after the wake "
                + flushed + ", committed " + committed + " (by a claim already reaped or superseded: " + committedAfterReap
                + ", must be 0; the others by a claim still live at the commit: one the reapers never took, e.g. taken in a"
                + " transaction the pause froze before its commit); stale outcomes the paused engines counted after their pause "
                + stale);
    }

    private void noSignalLost(List<Integer> orders, Map<Integer, SignalResult> firstSignals, Set<Integer> retried) {
        Map<SignalResult, Integer> results = new HashMap<>();
        firstSignals.values().forEach(r -> results.merge(r, 1, Integer::sum));
        // a first attempt whose commit failed may have landed: its retry then finds the order finished
        // with that very signal (each order's result carries its own payment: checked above)
        long afterRetry = firstSignals.entrySet().stream()
                .filter(e -> e.getValue() == SignalResult.NO_TARGET && retried.contains(e.getKey())).count();
        long noTarget = results.getOrDefault(SignalResult.NO_TARGET, 0) - afterRetry;
        if (noTarget > 0) {
            violate(noTarget + " payment signals found no live order");
        }
        if (firstSignals.size() != orders.size()) {
            violate(firstSignals.size() + " payment signals sent for " + orders.size() + " orders");
        }
        long left = count("SELECT count(*) FROM " + E + ".signals");
        long onFinished = count("SELECT count(*) FROM " + E + ".signals s JOIN " + E
                + ".gen_durable g ON g.id = s.target_id WHERE g.status IN ('done', 'failed')");
        if (onFinished > 0) {
            // seen once in a 20-minute run: the delivery's target lookup saw the row live, its insert
            // did not wait for the terminal flush's row lock, the flush cleared the inbox before the
            // insert was visible, and the caller got DELIVERED for a signal no step will ever read
            violate(onFinished + " signals were answered as delivered but stored in the inbox of an instance that finished"
                    + " at the same time (the delivery raced its terminal flush, which had already cleared the inbox)");
        }
        if (left > onFinished) {
            violate((left - onFinished) + " signals left unconsumed in inboxes");
        }
        lines.add("signals: " + firstSignals.size() + " payments sent " + results + " (" + retried.size()
                + " answered after a retry, of which NO_TARGET " + afterRetry + ": the first attempt had landed), left in inboxes: " + left
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
                     + " (result ->> 'seq')::int, (result ->> 'children')::int, result ->> 'woke', result ->> 'nudge' FROM "
                     + E + ".gen_durable")) {
            while (rs.next()) {
                long parent = rs.getLong(5);
                Long parentId = rs.wasNull() ? null : parent;
                int seq = rs.getInt(7);
                Integer seqV = rs.wasNull() ? null : seq;
                int kids = rs.getInt(8);
                Integer kidsV = rs.wasNull() ? null : kids;
                rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), parentId,
                        rs.getString(6), seqV, kidsV, rs.getString(9), rs.getString(10)));
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

    private void exec(String sql) {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }

    private void violate(String what) {
        violations.add(what);
    }
}
