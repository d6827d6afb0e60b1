package io.gendurable.impl.support;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts the statements prepared through a DataSource on every thread, by the start of their SQL. */
public final class StatementCounter {
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    /** @return a DataSource that counts what is prepared through it */
    public DataSource wrap(DataSource target) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[]{DataSource.class},
                (proxy, method, args) -> {
                    Object r = invoke(target, method, args);
                    return r instanceof Connection c ? connection(c) : r;
                });
    }

    private Connection connection(Connection c) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && args != null && args[0] instanceof String sql) {
                        String key = sql.strip();
                        key = key.substring(0, Math.min(40, key.length()));
                        counts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                    }
                    if (method.getName().equals("unwrap") || method.getName().equals("isWrapperFor")) {
                        return invoke(c, method, args);
                    }
                    return invoke(c, method, args);
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** @return how many prepared statements started with {@code prefix} */
    public int count(String prefix) {
        return counts.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
                .mapToInt(e -> e.getValue().get()).sum();
    }
}
