package io.gendurable.impl.support;

import javax.sql.DataSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/** Counts the statements prepared through a DataSource on every thread, by their SQL text. */
public final class StatementCounter {
    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    /** @return a DataSource that counts what is prepared through it */
    public DataSource wrap(DataSource target) {
        return JdbcSpy.around(target, (method, args, call) -> {
            String sql = JdbcSpy.preparedSql(method, args);
            if (sql != null) {
                counts.computeIfAbsent(sql.strip(), k -> new AtomicInteger()).incrementAndGet();
            }
            return call.proceed();
        });
    }

    /** @return how many prepared statements started with {@code prefix} */
    public int count(String prefix) {
        return count(sql -> sql.startsWith(prefix));
    }

    /** @return how many prepared statements {@code which} accepts (given their stripped text) */
    public int count(Predicate<String> which) {
        return counts.entrySet().stream().filter(e -> which.test(e.getKey())).mapToInt(e -> e.getValue().get()).sum();
    }
}
