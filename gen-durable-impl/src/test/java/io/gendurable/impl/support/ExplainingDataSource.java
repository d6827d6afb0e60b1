package io.gendurable.impl.support;

import jakarta.json.JsonObject;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.io.StringReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.logging.Logger;

/**
 * Wraps a DataSource so a test sees the plans of the statements a piece of code really runs:
 * while {@link #record} runs on a thread, each {@link PreparedStatement#executeQuery()} of a
 * statement whose SQL {@code which} accepts first runs {@code EXPLAIN (<options>) <the same SQL>}
 * on the same connection, inside the same transaction (so its settings apply, such as
 * {@code SET LOCAL plan_cache_mode}), with the same parameters bound the same way (every
 * {@code setXxx(index, …)} call is replayed on the EXPLAIN statement), and records the plan.
 * Then the statement runs as it would have. Other threads are not affected.
 */
public final class ExplainingDataSource extends RecordingDataSource<ExplainingDataSource.Explained> {
    /** One statement as executed, and its plan ({@code EXPLAIN … FORMAT JSON}'s first element). */
    public record Explained(String sql, JsonObject plan) {
    }

    private final Predicate<String> which;
    private final String options;

    /**
     * @param target  the real DataSource
     * @param which   which statements (by SQL) to explain
     * @param options EXPLAIN's options, {@code FORMAT JSON} among them
     */
    public ExplainingDataSource(DataSource target, Predicate<String> which, String options) {
        super(target);
        this.which = which;
        this.options = options;
    }




    @Override
    protected Connection wrap(Connection c) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                (proxy, method, args) -> {
                    Object r = invoke(c, method, args);
                    if (method.getName().equals("prepareStatement") && args[0] instanceof String sql
                            && r instanceof PreparedStatement ps && which.test(sql)) {
                        return explaining(c, sql, ps);
                    }
                    return r;
                });
    }

    /** A statement that records its parameter bindings and explains itself before it runs. */
    private PreparedStatement explaining(Connection c, String sql, PreparedStatement ps) {
        List<Object[]> binds = new ArrayList<>();   // {Method, Object[] args}
        return (PreparedStatement) Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
                new Class<?>[]{PreparedStatement.class}, (proxy, method, args) -> {
                    String name = method.getName();
                    // parameter setters: setXxx(int index, value[, …]); setFetchSize(int) and the like take one argument
                    if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer) {
                        binds.add(new Object[]{method, args});
                    } else if (name.equals("clearParameters")) {
                        binds.clear();
                    } else if (name.equals("executeQuery") && (args == null || args.length == 0)) {
                        List<Explained> seen = recording();
                        if (seen != null) {
                            seen.add(new Explained(sql.strip(), explain(c, sql, binds)));
                        }
                    }
                    return invoke(ps, method, args);
                });
    }

    private JsonObject explain(Connection c, String sql, List<Object[]> binds) throws Throwable {
        try (PreparedStatement e = c.prepareStatement("EXPLAIN (" + options + ") " + sql)) {
            for (Object[] b : binds) {
                invoke(e, (Method) b[0], (Object[]) b[1]);
            }
            StringBuilder json = new StringBuilder();
            try (ResultSet rs = e.executeQuery()) {
                while (rs.next()) {
                    json.append(rs.getString(1));
                }
            }
            try (var reader = jakarta.json.Json.createReader(new StringReader(json.toString()))) {
                return reader.readArray().getJsonObject(0);
            }
        }
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

}
