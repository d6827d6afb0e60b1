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
