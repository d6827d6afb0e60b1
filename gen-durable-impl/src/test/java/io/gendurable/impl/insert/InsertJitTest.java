package io.gendurable.impl.insert;

import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A large batch insert in a transaction the engine owns turns PostgreSQL's JIT compiler off for
 * the rest of that transaction: past {@code jit_above_cost} (near a thousand rows) the server
 * compiled the statement on every execution, about 30 ms of a 40 ms insert of 1,000 rows. A
 * small batch, and any batch in a caller's transaction, leave the session's setting alone.
 */
@EngineTest
class InsertJitTest {

    @Test
    void a_large_batch_in_an_engine_transaction_runs_without_jit_and_a_caller_s_keeps_its_setting(EngineHarness h)
            throws SQLException {
        h.start("web", c -> c.queues(Map.of()));  // migrates
        InsertSql sql = new InsertSql(new SchemaName(h.schema()));
        Instant now = Instant.now();

        assertThat(jitAfter(h, sql, rows(InsertSql.JIT_OFF_ROWS, now), now, true)).isEqualTo("off");
        assertThat(jitAfter(h, sql, rows(InsertSql.JIT_OFF_ROWS - 1, now), now, true)).isEqualTo("on");
        assertThat(jitAfter(h, sql, rows(InsertSql.JIT_OFF_ROWS, now), now, false)).as("a caller's transaction").isEqualTo("on");
        assertThat(h.queryLong("SELECT count(*) FROM gen_durable")).isEqualTo(3L * InsertSql.JIT_OFF_ROWS - 1);
    }

    /** @return the session's {@code jit} after the insert, inside its transaction (then committed) */
    private static String jitAfter(EngineHarness h, InsertSql sql, List<InsertSql.Row> rows, Instant now, boolean own)
            throws SQLException {
        try (Connection c = h.dataSource().getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL jit = on");  // whatever this server's default
                sql.insert(c, rows, now, null, null, null, own);
                try (ResultSet rs = s.executeQuery("SHOW jit")) {
                    rs.next();
                    String jit = rs.getString(1);
                    c.commit();
                    return jit;
                }
            }
        }
    }

    private static List<InsertSql.Row> rows(int n, Instant now) {
        List<InsertSql.Row> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rows.add(new InsertSql.Row("f", 1, "start", "{}", "default", 0, now, null, null, null, null, 1, null,
                    null, null));
        }
        return rows;
    }
}
