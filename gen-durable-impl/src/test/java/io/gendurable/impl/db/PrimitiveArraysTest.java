package io.gendurable.impl.db;

import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The flush binds its ids, tokens, flags and weights as primitive arrays. In an application
 * server the engine's connection is the pool's wrapper around a driver loaded by the server
 * (Open Liberty answers {@code DSRA9122E … does not wrap any objects of type
 * org.postgresql.PGConnection}): the arrays must bind there too. The wrapper here is what such a
 * pool does: it delegates to a real connection and refuses to unwrap to this class loader's pgjdbc.
 */
class PrimitiveArraysTest {
    private record Row(long id, int weight, boolean flag) {
    }

    @Test
    void primitive_columns_bind_through_a_pool_wrapper_that_does_not_unwrap_to_pgjdbc() throws Exception {
        Unnest<Row> input = Unnest.of(UnnestColumn.bigintNotNull("id", Row::id), UnnestColumn.int4NotNull("weight", Row::weight),
                UnnestColumn.boolNotNull("flag", Row::flag));
        List<Row> rows = List.of(new Row(7, 2, true), new Row(-1, 0, false));
        try (Connection real = SharedTestDatabase.dataSource().getConnection()) {
            for (Connection c : List.of(real, serverPoolWrapper(real))) {
                try (PreparedStatement ps = c.prepareStatement("SELECT id, weight, flag FROM " + input.as("x") + " ORDER BY id")) {
                    input.bind(c, ps, 1, rows);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(List.of(rs.getLong(1), rs.getInt(2), rs.getBoolean(3))).containsExactly(-1L, 0, false);
                        assertThat(rs.next()).isTrue();
                        assertThat(List.of(rs.getLong(1), rs.getInt(2), rs.getBoolean(3))).containsExactly(7L, 2, true);
                    }
                }
            }
        }
    }

    /** A connection as an application server's pool hands it out: every call delegated, no unwrap to pgjdbc. */
    private static Connection serverPoolWrapper(Connection real) {
        return (Connection) Proxy.newProxyInstance(PrimitiveArraysTest.class.getClassLoader(), new Class<?>[]{Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("isWrapperFor")) {
                        return false;
                    }
                    if (method.getName().equals("unwrap")) {
                        throw new SQLException("DSRA9122E: the pool's connection does not wrap any objects of type " + args[0]);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
