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
public final class StatementRecordingDataSource extends RecordingDataSource<String> {

    public StatementRecordingDataSource(DataSource target) {
        super(target);
    }




    @Override
    protected Connection wrap(Connection c) {
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
        List<String> seen = recording();
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

}
