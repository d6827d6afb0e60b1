package io.gendurable.impl.cdi.resources;

import javax.sql.DataSource;
import java.util.Objects;

/**
 * The engine's DataSource, where it came from, and whether this layer owns it (only a pool it
 * built from {@code gendurable.jdbc.url} is closed at shutdown).
 *
 * @param dataSource the DataSource
 * @param origin     a description for the start-up log (no password)
 * @param owned      whether {@link #close()} closes it
 */
public record ResolvedDataSource(DataSource dataSource, String origin, boolean owned) implements AutoCloseable {

    /** Requires a DataSource and an origin. */
    public ResolvedDataSource {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(origin, "origin");
    }

    /** Closes the DataSource if this layer built it; leaves the container's and the application's alone. */
    @Override
    public void close() {
        if (owned && dataSource instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                System.getLogger("io.gendurable.cdi").log(System.Logger.Level.WARNING,
                        "gen-durable could not close its connection pool: " + e, e);
            }
        }
    }
}
