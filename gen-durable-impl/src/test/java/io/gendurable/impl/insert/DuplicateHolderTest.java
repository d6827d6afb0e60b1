package io.gendurable.impl.insert;

import io.gendurable.Inserted;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A duplicate answer names the holder the insert conflicted with, read after the conflict. The
 * insert read the key's holder with its statement's snapshot: when the holder H1 ended and a
 * new holder H2 of the same key committed while the insert waited on the unique index, the insert
 * conflicted with H2 but answered {@code Inserted(H1, duplicate)}, a finished instance (a caller
 * then signalled or awaited it while H2 was the live one). The interleaving is forced: the insert's
 * batch holds an earlier key that another open transaction holds, so its statement has taken its
 * snapshot (H1 live) and waits; meanwhile H1 ends and H2 is inserted and committed; then the
 * other transaction ends and the insert reaches key K.
 */
@EngineTest
class DuplicateHolderTest {
    @Test
    void a_duplicate_names_the_holder_it_conflicted_with_not_one_that_ended_while_it_waited(EngineHarness h) throws Exception {
        h.start("dup", c -> c.queues(Map.of())).stop();  // migrates the schema
        InsertSql sql = new InsertSql(new SchemaName(h.schema()));
        String scope = "'{runnable,executing,awaiting_signal,awaiting_children}'";
        long h1 = h.queryLong("INSERT INTO gen_durable (fsm, step, state, correlation_key, correlation_scope) VALUES "
                + "('dup', 'a', '{}', 'k', " + scope + ") RETURNING id");
        Instant now = Instant.now();
        InsertSql.Row early = row("a-key", now);
        InsertSql.Row k = row("k", now);
        try (Connection other = h.dataSource().getConnection(); Connection insert = h.dataSource().getConnection()) {
            other.setAutoCommit(false);
            try (Statement s = other.createStatement()) {
                s.execute("SET search_path TO " + h.schema());
                s.executeUpdate("INSERT INTO gen_durable (fsm, step, state, correlation_key, correlation_scope) VALUES "
                        + "('dup', 'a', '{}', 'a-key', " + scope + ")");
            }
            insert.setAutoCommit(false);
            long pid;
            try (Statement s = insert.createStatement()) {
                s.execute("SET search_path TO " + h.schema());
                try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                    rs.next();
                    pid = rs.getLong(1);
                }
            }
            CompletableFuture<Inserted[]> answer = CompletableFuture.supplyAsync(() -> {
                try {
                    Inserted[] out = sql.insert(insert, List.of(early, k), now);
                    insert.commit();
                    return out;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            await().alias("the insert waits on the other transaction's key").atMost(Duration.ofSeconds(10))
                    .until(() -> h.queryLong("SELECT cardinality(pg_blocking_pids(" + pid + "))") > 0);
            h.exec("UPDATE gen_durable SET status = 'done' WHERE id = " + h1);  // H1 ends: its guard goes
            long h2 = h.queryLong("INSERT INTO gen_durable (fsm, step, state, correlation_key, correlation_scope) VALUES "
                    + "('dup', 'a', '{}', 'k', " + scope + ") RETURNING id");
            other.rollback();
            Inserted[] out = answer.get(10, TimeUnit.SECONDS);
            assertThat(out[1]).as("the answer for key k").isEqualTo(new Inserted(h2, true));
            assertThat(out[0].duplicate()).isFalse();
        }
    }

    private static InsertSql.Row row(String key, Instant now) {
        return new InsertSql.Row("dup", 1, "a", "{}", "default", 0, now, key,
                "{runnable,executing,awaiting_signal,awaiting_children}", null, null, 1, null, null, null);
    }
}
