package io.gendurable.impl.support;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * Wraps a DataSource so a test can see every statement a piece of code prepares or creates on
 * its own thread (other threads, such as the engine's schedulers, are not recorded). Created
 * statements are recorded as {@code <createStatement>} since their SQL arrives later.
 */
public final class StatementRecordingDataSource implements DataSource {
    private final DataSource target;
    private final ThreadLocal<List<String>> recording = new ThreadLocal<>();

    public StatementRecordingDataSource(DataSource target) {
        this.target = target;
    }

    /** Runs {@code body} on this thread and returns the statements it prepared or created, in order. */
    public List<String> record(Runnable body) {
        List<String> seen = new ArrayList<>();
        recording.set(seen);
        try {
            body.run();
        } finally {
            recording.remove();
        }
        return seen;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(target.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return wrap(target.getConnection(user, password));
    }

    private Connection wrap(Connection c) {
        InvocationHandler h = (proxy, method, args) -> {
            note(method, args);
            try {
                return method.invoke(c, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[]{Connection.class}, h);
    }

    private void note(Method method, Object[] args) {
        List<String> seen = recording.get();
        if (seen == null) {
            return;
        }
        switch (method.getName()) {
            case "prepareStatement", "prepareCall" -> seen.add(((String) args[0]).strip());
            case "createStatement" -> seen.add("<createStatement>");
            default -> {
                // not a statement
            }
        }
    }

    @Override public PrintWriter getLogWriter() throws SQLException { return target.getLogWriter(); }
    @Override public void setLogWriter(PrintWriter out) throws SQLException { target.setLogWriter(out); }
    @Override public void setLoginTimeout(int seconds) throws SQLException { target.setLoginTimeout(seconds); }
    @Override public int getLoginTimeout() throws SQLException { return target.getLoginTimeout(); }
    @Override public Logger getParentLogger() throws SQLFeatureNotSupportedException { return target.getParentLogger(); }
    @Override public <T> T unwrap(Class<T> iface) throws SQLException { return target.unwrap(iface); }
    @Override public boolean isWrapperFor(Class<?> iface) throws SQLException { return target.isWrapperFor(iface); }
}
