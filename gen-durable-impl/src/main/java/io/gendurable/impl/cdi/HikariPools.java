package io.gendurable.impl.cdi;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The only class that touches HikariCP (an optional dependency), so it is loaded only when the
 * engine has to build its own pool from {@code gendurable.jdbc.url}.
 */
final class HikariPools {
    private HikariPools() {
    }

    /** @return whether HikariCP is on the class path */
    static boolean available() {
        try {
            Class.forName("com.zaxxer.hikari.HikariDataSource", false, HikariPools.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Builds and opens a pool (it connects once, so a wrong URL fails here, at start-up).
     *
     * @param url      the JDBC URL
     * @param user     the user, or null when the URL carries it
     * @param password the password, or null
     * @param maxSize  the most connections
     * @return the pool; the caller closes it
     */
    static HikariDataSource open(String url, String user, String password, int maxSize) {
        HikariConfig c = new HikariConfig();
        c.setPoolName("gendurable");
        c.setJdbcUrl(url);
        if (user != null) {
            c.setUsername(user);
        }
        if (password != null) {
            c.setPassword(password);
        }
        c.setMaximumPoolSize(maxSize);
        c.setMinimumIdle(Math.min(2, maxSize));
        return new HikariDataSource(c);
    }
}
