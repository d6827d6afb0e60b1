package io.gendurable.impl.db;

import io.gendurable.impl.support.OwnSchema;
import com.zaxxer.hikari.HikariDataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Schema version 2 (the fencing token) meets version-1 work and version-1 code: claims made
 * before the migration get tokens, so the CHECK holds; a version-1 node still running after the
 * migration cannot claim (its claim, which sets no token, fails on
 * {@code gen_durable_executing_is_fenced} and changes nothing), while its outcome for a claim it
 * made before the migration still commits under its own guard. docs/operations.md, "Upgrading",
 * describes the order this supports.
 */
class SchemaV2UpgradeTest {
    /** The version-1 claim's update, as version-1 code sends it (no claim_token). */
    private static final String V1_CLAIM = """
            UPDATE gen_durable g SET status = 'executing', locked_by = ?, lease_expires_at = now() + interval '30 seconds',
                   updated_at = now()
            WHERE g.id = (SELECT id FROM gen_durable WHERE status = 'runnable' ORDER BY priority, eligible_at LIMIT 1
                          FOR NO KEY UPDATE SKIP LOCKED)
            """;
    /** The version-1 flush guard, reduced to one row's transition to done. */
    private static final String V1_DONE = """
            UPDATE gen_durable g SET status = 'done', locked_by = NULL, lease_expires_at = NULL, updated_at = now()
            WHERE g.id = ? AND g.locked_by = ? AND g.attempt = 1 AND g.status::text = 'executing'
            """;

    @RegisterExtension
    final OwnSchema own = OwnSchema.perTest("upgrade");
    HikariDataSource ds;
    String schema;

    @BeforeEach
    void up() {
        ds = own.dataSource();
        schema = own.schema();
    }

    private void migrate(String target) {
        Flyway.configure(Migrations.class.getClassLoader()).dataSource(ds).schemas(schema).defaultSchema(schema)
                .createSchemas(true).table(Migrations.HISTORY_TABLE).locations("classpath:db/gendurable")
                .target(target).load().migrate();
    }

    private long count(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void version_one_claims_survive_the_migration_and_version_one_code_cannot_claim_on_version_two() throws Exception {
        migrate("1");
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            s.execute("INSERT INTO gen_durable (fsm, step) SELECT 'f', 'a' FROM generate_series(1, 4)");
            try (PreparedStatement claim = c.prepareStatement(V1_CLAIM)) {
                claim.setString(1, "old-node:default@1");
                assertThat(claim.executeUpdate()).isEqualTo(1);
                assertThat(claim.executeUpdate()).isEqualTo(1);
            }
        }

        migrate("2");

        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET search_path TO " + schema);
            assertThat(count(c, "SELECT count(*) FROM gen_durable WHERE status = 'executing' AND claim_token IS NOT NULL"))
                    .as("claims made before the migration are fenced").isEqualTo(2);
            assertThat(count(c, "SELECT count(DISTINCT claim_token) FROM gen_durable")).isEqualTo(2);

            try (PreparedStatement claim = c.prepareStatement(V1_CLAIM)) {
                claim.setString(1, "old-node:default@1");
                assertThatThrownBy(claim::executeUpdate).isInstanceOf(SQLException.class)
                        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23514"))
                        .hasMessageContaining("gen_durable_executing_is_fenced");
            }
            assertThat(count(c, "SELECT count(*) FROM gen_durable WHERE status = 'runnable'")).isEqualTo(2);

            long claimed = count(c, "SELECT min(id) FROM gen_durable WHERE status = 'executing'");
            try (PreparedStatement done = c.prepareStatement(V1_DONE)) {
                done.setLong(1, claimed);
                done.setString(2, "old-node:default@1");
                assertThat(done.executeUpdate()).as("a version-1 outcome of a pre-migration claim").isEqualTo(1);
            }
        }
    }
}
