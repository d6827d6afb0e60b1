package io.gendurable.impl.await;

import io.gendurable.impl.db.Jdbc;
import io.gendurable.impl.db.SchemaName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The await bridge's batched status probe: one statement per tick for every waiter on the node
 * (primary key). (The await-timeout sweep of parked rows is the reaper's: {@code LeaseSql}.)
 */
public final class AwaitSql {
    private final String probeSql;

    public AwaitSql(SchemaName schema) {
        String t = schema.instances();
        this.probeSql = "SELECT id, status::text FROM " + t + " WHERE id = ANY(?::bigint[])";
    }

    /** @return id → status (database name) of the ids that still exist */
    public Map<Long, String> probe(Connection c, Collection<Long> ids) throws SQLException {
        Map<Long, String> out = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(probeSql)) {
            ps.setArray(1, Jdbc.longs(c, ids));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getLong(1), rs.getString(2));
                }
            }
        }
        return out;
    }
}
