package io.gendurable.impl.insert;

import io.gendurable.Inserted;
import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.db.Unnest;
import io.gendurable.impl.insert.InsertSql.Row;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.gendurable.impl.db.UnnestColumn.bigint;
import static io.gendurable.impl.db.UnnestColumn.boolNotNull;
import static io.gendurable.impl.db.UnnestColumn.instant;
import static io.gendurable.impl.db.UnnestColumn.int4;
import static io.gendurable.impl.db.UnnestColumn.ordinal;
import static io.gendurable.impl.db.UnnestColumn.text;

/**
 * The debounced insert ({@code InsertOptions.debounce}): rows of {@link InsertSql}'s shape with a
 * debounce key, each inserted, or folded into the waiting row of its FSM and key.
 */
public final class DebouncedInsertSql {
    /** The debounced insert's input: as {@link InsertSql}'s without what a debounced row cannot have, plus its key and mode. */
    private static final Unnest<Row> DEBOUNCED = Unnest.of(
            ordinal("ord"),
            text("fsm", Row::fsm),
            int4("fsm_version", Row::fsmVersion),
            text("step", Row::step),
            text("state", Row::stateJson),
            text("queue", Row::queue),
            int4("priority", Row::priority),
            instant("eligible_at", Row::eligibleAt),
            text("concurrency_key", Row::concurrencyKey),
            text("rate_limit", Row::rateLimit),
            int4("weight", Row::weight),
            text("traceparent", Row::traceparent),
            text("tracestate", Row::tracestate),
            bigint("step_timeout_ms", Row::stepTimeoutMillis),
            text("debounce_key", Row::debounceKey),
            boolNotNull("debounce_first", Row::debounceFirst));

    private final String sql;

    public DebouncedInsertSql(SchemaName schema) {
        // Debounced rows (InsertOptions.debounce), one statement per batch whose (fsm, key) pairs are
        // distinct: each inserts its row, or, when the unique gen_durable_debounce index holds a row of
        // its FSM and key still waiting for its first start (runnable, and written by nothing but
        // inserts of its key since: updated_at = debounce_at), moves that row's start to its own window's
        // end (never earlier) and, unless debounce_first, gives it its state. In key order, as the
        // correlation insert, so two batches meet at the index without a deadlock. An insert that meets
        // a row another transaction is inserting or claiming waits for it, then updates it (inserted) or
        // inserts (claimed: the row left the index). The answer says which: the returned id is the
        // input's own (inserted) or the waiting row's (debounced).
        this.sql = """
                WITH input AS (
                    SELECT nextval('%1$s_id_seq') AS id, x.*
                    FROM (SELECT * FROM %2$s
                          ORDER BY fsm, debounce_key, ord) x
                ), ins AS (
                    -- arbiter: gen_durable_debounce (unique, partial on the waiting rows of a debounce key)
                    INSERT INTO %1$s AS g (id, fsm, fsm_version, step, state, queue, priority, eligible_at,
                                           concurrency_key, rate_limit, weight, traceparent, tracestate,
                                           step_timeout_ms, debounce_key, debounce_at, inserted_at, updated_at, status)
                    SELECT id, fsm, fsm_version, step, state::jsonb, queue, priority, eligible_at::timestamptz,
                           concurrency_key, rate_limit, weight, traceparent, tracestate,
                           step_timeout_ms, debounce_key, ?, ?, ?, 'runnable'
                    FROM input
                    ORDER BY fsm, debounce_key, ord
                    ON CONFLICT (fsm, debounce_key)
                        WHERE debounce_key IS NOT NULL AND status = 'runnable' AND updated_at = debounce_at
                    -- the state, its FSM version and that version's step go together: an insert that gives
                    -- its state gives its version (a node of an older or newer version of the FSM), and
                    -- then that version's step; within one version the first insert's step stays
                    DO UPDATE SET eligible_at = GREATEST(g.eligible_at, EXCLUDED.eligible_at),
                                  state = CASE WHEN (SELECT i.debounce_first FROM input i WHERE i.id = EXCLUDED.id)
                                               THEN g.state ELSE EXCLUDED.state END,
                                  fsm_version = CASE WHEN (SELECT i.debounce_first FROM input i WHERE i.id = EXCLUDED.id)
                                                     THEN g.fsm_version ELSE EXCLUDED.fsm_version END,
                                  step = CASE WHEN (SELECT i.debounce_first FROM input i WHERE i.id = EXCLUDED.id)
                                                   OR g.fsm_version = EXCLUDED.fsm_version
                                              THEN g.step ELSE EXCLUDED.step END,
                                  updated_at = EXCLUDED.updated_at, debounce_at = EXCLUDED.debounce_at
                    RETURNING g.id, g.fsm, g.debounce_key
                )
                SELECT i.ord, ins.id, ins.id = i.id AS inserted
                FROM input i JOIN ins ON ins.fsm = i.fsm AND ins.debounce_key = i.debounce_key
                ORDER BY i.ord
                """.formatted(schema.instances(), DEBOUNCED.as("u"));
    }

    /**
     * Inserts debounced rows (each with a {@link Row#debounceKey()}): per row, a new runnable row, or
     * the waiting row of its FSM and key moved and (unless {@link Row#debounceFirst()}) given its state.
     * Rows of one FSM and key in one batch apply in input order: the first in one statement, the
     * second in the next, and so on (one statement when the pairs are distinct).
     *
     * @param now the insert's instant: {@code inserted_at}, {@code updated_at} and {@code debounce_at}
     * @return per input position: the new row's id, or the waiting row's with {@code debounced}
     */
    public Inserted[] insertDebounced(Connection c, List<Row> rows, Instant now) throws SQLException {
        Inserted[] out = new Inserted[rows.size()];
        // round k holds each pair's k-th row: distinct pairs per statement (ON CONFLICT DO UPDATE
        // cannot write one row twice in a statement), and the pair's rows apply in input order
        Map<List<String>, Integer> seen = new HashMap<>();
        List<List<Integer>> rounds = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            if (r.debounceKey() == null) {
                throw new IllegalArgumentException("row " + i + " has no debounce key: " + r);
            }
            int round = seen.merge(List.of(r.fsm(), r.debounceKey()), 0, (a, b) -> a + 1);
            if (round == rounds.size()) {
                rounds.add(new ArrayList<>());
            }
            rounds.get(round).add(i);
        }
        for (List<Integer> positions : rounds) {
            List<Row> batch = positions.stream().map(rows::get).toList();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                int p = DEBOUNCED.bind(c, ps, 1, batch);
                ps.setObject(p++, Jdbc.ts(now));
                ps.setObject(p++, Jdbc.ts(now));
                ps.setObject(p, Jdbc.ts(now));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        int i = positions.get(rs.getInt("ord"));
                        out[i] = new Inserted(rs.getLong("id"), false, !rs.getBoolean("inserted"));
                    }
                }
            }
        }
        return out;
    }

    /** @return the statement text (for tests and docs) */
    public String sql() {
        return sql;
    }
}
