package io.gendurable.impl.support;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.function.UnaryOperator;

/**
 * JDBC proxies for tests that watch, count or hold what the engine does on its connections: one
 * place for the reflection, so each test states only what it does around a call.
 */
public final class JdbcSpy {
    private JdbcSpy() {
    }

    /** The call being intercepted. */
    @FunctionalInterface
    public interface Call {
        /** @return what the real call answers (its exception, unwrapped, when it throws) */
        Object proceed() throws Throwable;
    }

    /** What a test does around one call on a connection: it must {@link Call#proceed()} for the call to happen. */
    @FunctionalInterface
    public interface Around {
        Object call(Method method, Object[] args, Call call) throws Throwable;
    }

    /** @return a DataSource handing out {@code wrap.apply(c)} for each connection {@code c} of {@code target} */
    public static DataSource connections(DataSource target, UnaryOperator<Connection> wrap) {
        return proxy(DataSource.class, target, (m, args, call) -> {
            Object r = call.proceed();
            return r instanceof Connection c ? wrap.apply(c) : r;
        });
    }

    /** @return a DataSource whose connections pass every call through {@code around} */
    public static DataSource around(DataSource target, Around around) {
        return connections(target, c -> around(c, around));
    }

    /** @return {@code c}, with every call going through {@code around} */
    public static Connection around(Connection c, Around around) {
        return proxy(Connection.class, c, around);
    }

    /**
     * @return {@code c}, with every call on it and on the statements it creates going through
     * {@code around} (which sees the statement calls with their own methods)
     */
    public static Connection deep(Connection c, Around around) {
        Around deep = new Around() {
            @Override
            public Object call(Method method, Object[] args, Call call) throws Throwable {
                Object r = around.call(method, args, call);
                if (r instanceof java.sql.CallableStatement s) {
                    return proxy(java.sql.CallableStatement.class, s, this);
                }
                if (r instanceof java.sql.PreparedStatement s) {
                    return proxy(java.sql.PreparedStatement.class, s, this);
                }
                if (r instanceof java.sql.Statement s) {
                    return proxy(java.sql.Statement.class, s, this);
                }
                return r;
            }
        };
        return proxy(Connection.class, c, deep);
    }

    /**
     * @return a DataSource whose connections, and the statements they create, report every
     * {@link java.sql.SQLException} they throw to {@code seen} (then throw it on): a test's view
     * of the errors on the engine's own connections, whatever else runs on the database
     */
    public static DataSource errors(DataSource target, java.util.function.Consumer<java.sql.SQLException> seen) {
        return connections(target, c -> deep(c, (method, args, call) -> {
            try {
                return call.proceed();
            } catch (java.sql.SQLException e) {
                seen.accept(e);
                throw e;
            }
        }));
    }

    /**
     * @return a DataSource that counts in {@code transactions} every transaction its connections
     * end: each {@code commit()}, and each statement executed in auto-commit mode (an upper bound:
     * a commit with nothing to commit counts too). The engine's own transactions, unlike the
     * database-wide {@code pg_stat_database.xact_commit}, which other tests and builds move.
     */
    public static DataSource transactions(DataSource target, java.util.concurrent.atomic.LongAdder transactions) {
        return connections(target, c -> deep(c, (method, args, call) -> {
            String name = method.getName();
            if (name.equals("commit") || name.startsWith("execute") && c.getAutoCommit()) {
                transactions.increment();
            }
            return call.proceed();
        }));
    }

    /** @return the SQL of a {@code prepareStatement} call, else null */
    public static String preparedSql(Method method, Object[] args) {
        return method.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql ? sql : null;
    }

    private static <T> T proxy(Class<T> type, T target, Around around) {
        return type.cast(Proxy.newProxyInstance(JdbcSpy.class.getClassLoader(), new Class<?>[]{type},
                (proxy, method, args) -> around.call(method, args, () -> invoke(target, method, args))));
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
