package io.gendurable.impl.support;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * A DataSource that wraps each connection it hands out, so that while {@link #record} runs on a
 * thread, what that thread's code does through it is noted (other threads are not affected).
 *
 * @param <T> what is noted
 */
public abstract class RecordingDataSource<T> implements DataSource {
    private final DataSource target;
    private final ThreadLocal<List<T>> recording = new ThreadLocal<>();

    protected RecordingDataSource(DataSource target) {
        this.target = target;
    }

    /** Runs {@code body} on this thread; @return what it did, as noted, in order. */
    public List<T> record(Runnable body) {
        List<T> seen = new ArrayList<>();
        recording.set(seen);
        try {
            body.run();
        } finally {
            recording.remove();
        }
        return seen;
    }

    /** @return where this thread's notes go, or null when it is not recording */
    protected List<T> recording() {
        return recording.get();
    }

    /** @return {@code c} as the code under test sees it */
    protected abstract Connection wrap(Connection c);

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(target.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return wrap(target.getConnection(user, password));
    }

    @Override public PrintWriter getLogWriter() throws SQLException { return target.getLogWriter(); }
    @Override public void setLogWriter(PrintWriter out) throws SQLException { target.setLogWriter(out); }
    @Override public void setLoginTimeout(int seconds) throws SQLException { target.setLoginTimeout(seconds); }
    @Override public int getLoginTimeout() throws SQLException { return target.getLoginTimeout(); }
    @Override public Logger getParentLogger() throws SQLFeatureNotSupportedException { return target.getParentLogger(); }
    @Override public <U> U unwrap(Class<U> iface) throws SQLException { return target.unwrap(iface); }
    @Override public boolean isWrapperFor(Class<?> iface) throws SQLException { return target.isWrapperFor(iface); }
}
