package io.gendurable.impl.health;

import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The readiness probe's statements: whether the engine's tables and Flyway's history table
 * exist, then the versions the history records. Both read catalogue or tiny tables: they answer
 * in a millisecond on a healthy database.
 */
final class HealthSql {
    private final String tablesSql;
    private final String versionsSql;

    HealthSql(SchemaName schema) {
        this.tablesSql = "SELECT to_regclass('" + schema.instances() + "') IS NOT NULL AS instances, to_regclass('"
                + schema.qualify(Migrations.HISTORY_TABLE) + "') IS NOT NULL AS history";
        this.versionsSql = "SELECT version, description, success FROM " + schema.qualify(Migrations.HISTORY_TABLE)
                + " WHERE version IS NOT NULL ORDER BY installed_rank";
    }

    /** What the probe found. @param instances the instances table exists @param history Flyway's history table exists */
    record Tables(boolean instances, boolean history) {
    }

    /**
     * One versioned migration of the history.
     *
     * @param version     its version
     * @param description its description (Flyway's, from the script's name)
     * @param success     whether it succeeded
     */
    record Applied(String version, String description, boolean success) {
    }

    Tables tables(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(tablesSql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new Tables(rs.getBoolean("instances"), rs.getBoolean("history"));
        }
    }

    List<Applied> applied(Connection c) throws SQLException {
        List<Applied> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(versionsSql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Applied(rs.getString("version"), rs.getString("description"), rs.getBoolean("success")));
            }
        }
        return out;
    }
}
