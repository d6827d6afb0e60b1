package io.gendurable.impl.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The group-commit flush: every buffered outcome's transition in ONE guarded
 * {@code UPDATE … FROM unnest(…)}. Rows are locked in id order first (so two flushes touching
 * the same rows queue instead of deadlocking), and each row commits only while
 * {@code locked_by = worker AND attempt = claimed attempt AND status = 'executing'}: a row whose guard fails is absent from
 * the answer and is reported stale. Index: the primary key.
 */
public final class FlushSql {
    private final String sql;

    public FlushSql(SchemaName schema) {
        this.sql = """
                WITH u AS (
                    SELECT * FROM unnest(?::bigint[], ?::text[], ?::int[], ?::text[], ?::text[], ?::boolean[],
                                         ?::text[], ?::text[], ?::text[], ?::boolean[], ?::text[], ?::text[])
                        AS t(id, worker, claimed_attempt, status, step, set_state, state, attempt_op, eligible_at,
                             set_result, result, error)
                ), owned AS (
                    SELECT g.id FROM %1$s g JOIN u ON u.id = g.id
                    WHERE g.locked_by = u.worker AND g.attempt = u.claimed_attempt AND g.status = 'executing'
                    ORDER BY g.id
                    FOR NO KEY UPDATE OF g
                )
                UPDATE %1$s g
                SET status = u.status::%2$s,
                    step = COALESCE(u.step, g.step),
                    state = CASE WHEN u.set_state THEN u.state::jsonb ELSE g.state END,
                    attempt = CASE u.attempt_op WHEN 'INCREMENT' THEN g.attempt + 1
                                                WHEN 'RESET' THEN 1 ELSE g.attempt END,
                    eligible_at = COALESCE(u.eligible_at::timestamptz, g.eligible_at),
                    result = CASE WHEN u.set_result THEN u.result::jsonb ELSE g.result END,
                    last_error = COALESCE(u.error, g.last_error),
                    locked_by = NULL,
                    lease_expires_at = NULL,
                    concurrency_shard = NULL,
                    updated_at = ?
                FROM u JOIN owned ON owned.id = u.id
                WHERE g.id = u.id AND g.locked_by = u.worker AND g.attempt = u.claimed_attempt AND g.status = 'executing'
                RETURNING g.id
                """.formatted(schema.instances(), schema.statusType());
    }

    /** @return the ids that committed; the others were stale */
    public Set<Long> flush(Connection c, List<OutcomeRow> rows, Instant now) throws SQLException {
        int n = rows.size();
        Long[] id = new Long[n];
        String[] worker = new String[n];
        Integer[] claimedAttempt = new Integer[n];
        String[] status = new String[n];
        String[] step = new String[n];
        Boolean[] setState = new Boolean[n];
        String[] state = new String[n];
        String[] attemptOp = new String[n];
        String[] eligible = new String[n];
        Boolean[] setResult = new Boolean[n];
        String[] result = new String[n];
        String[] error = new String[n];
        for (int i = 0; i < n; i++) {
            OutcomeRow r = rows.get(i);
            id[i] = r.id();
            worker[i] = r.worker();
            claimedAttempt[i] = r.claimedAttempt();
            status[i] = r.status();
            step[i] = r.step();
            setState[i] = r.setState();
            state[i] = r.stateJson();
            attemptOp[i] = r.attemptOp().name();
            eligible[i] = Jdbc.isoOrNull(r.eligibleAt());
            setResult[i] = r.setResult();
            result[i] = r.resultJson();
            error[i] = r.error();
        }
        Set<Long> committed = new HashSet<>(n * 2);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int p = 1;
            ps.setArray(p++, c.createArrayOf("bigint", id));
            ps.setArray(p++, Jdbc.texts(c, worker));
            ps.setArray(p++, Jdbc.ints(c, claimedAttempt));
            ps.setArray(p++, Jdbc.texts(c, status));
            ps.setArray(p++, Jdbc.texts(c, step));
            ps.setArray(p++, Jdbc.bools(c, setState));
            ps.setArray(p++, Jdbc.texts(c, state));
            ps.setArray(p++, Jdbc.texts(c, attemptOp));
            ps.setArray(p++, Jdbc.texts(c, eligible));
            ps.setArray(p++, Jdbc.bools(c, setResult));
            ps.setArray(p++, Jdbc.texts(c, result));
            ps.setArray(p++, Jdbc.texts(c, error));
            ps.setObject(p, Jdbc.ts(now));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    committed.add(rs.getLong(1));
                }
            }
        }
        return committed;
    }
}
