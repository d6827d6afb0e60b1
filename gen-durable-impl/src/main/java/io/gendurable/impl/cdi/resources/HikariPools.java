package io.gendurable.impl.cdi.resources;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The only class that touches HikariCP (an optional dependency), so it is loaded only when the
 * engine has to build its own pool from {@code gendurable.jdbc.url}.
 */
public final class HikariPools {
    /** A {@code password=} parameter of a JDBC URL, with the separator before it and any after it. */
    private static final Pattern URL_PASSWORD =
            Pattern.compile("([?&])password=([^&]*)&?", Pattern.CASE_INSENSITIVE);

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
     * @param name     the pool's name (its threads and log lines)
     * @return the pool; the caller closes it
     */
    static HikariDataSource open(String url, String user, String password, int maxSize, String name) {
        HikariConfig c = new HikariConfig();
        c.setPoolName(name);
        // The driver logs the URL it connects with (at FINE): a password travels as a property instead.
        String[] split = withoutPassword(url);
        String urlPassword = split[1];
        c.setJdbcUrl(split[0]);
        if (user != null) {
            c.setUsername(user);
        }
        if (password != null) {
            c.setPassword(password);
        } else if (urlPassword != null) {
            c.setPassword(urlPassword);
        }
        if (!SOCKET_TIMEOUT.matcher(split[0]).find()) {
            // a default the URL overrides: without one, a connection attempt to a server that accepts
            // the TCP connection and never answers (an old primary cut off, frozen) does not end, and
            // the pool opens no connection to the next host (docs/reliability.md#failover)
            c.addDataSourceProperty("socketTimeout", Integer.toString(DEFAULT_SOCKET_TIMEOUT_SECONDS));
        }
        c.setMaximumPoolSize(maxSize);
        c.setMinimumIdle(Math.min(2, maxSize));
        return new HikariDataSource(c);
    }

    /** The {@code socketTimeout} the engine's own pools get when their URL sets none, in seconds. */
    static final int DEFAULT_SOCKET_TIMEOUT_SECONDS = 60;

    private static final Pattern SOCKET_TIMEOUT =
            Pattern.compile("[?&]socketTimeout=");

    /**
     * @param url a JDBC URL
     * @return the URL without its {@code password=} parameter, and that password (URL-decoded), or null
     */
    public static String[] withoutPassword(String url) {
        Matcher m = URL_PASSWORD.matcher(url);
        if (!m.find()) {
            return new String[]{url, null};
        }
        String password = URLDecoder.decode(m.group(2), StandardCharsets.UTF_8);
        String rest = url.substring(0, m.start()) + m.group(1) + url.substring(m.end());
        return new String[]{rest.replaceAll("[?&]$", ""), password};
    }
}
