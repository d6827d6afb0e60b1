package io.gendurable.impl.support;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fresh schema on the tests' database with a small pool of its own, for each test of a class
 * that writes rows by SQL beside (or before) an engine: register it with
 * {@code @RegisterExtension final OwnSchema own = OwnSchema.perTest("hint");} and {@link #sql}
 * runs on that test's schema.
 */
public final class OwnSchema implements BeforeEachCallback, AfterEachCallback {
    private final String hint;
    private HikariDataSource ds;
    private String schema;

    private OwnSchema(String hint) {
        this.hint = hint;
    }

    /** @param hint part of the schemas' names @return a new schema and its pool for each test */
    public static OwnSchema perTest(String hint) {
        return new OwnSchema(hint);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ds = SharedTestDatabase.dataSource(2);
        schema = SharedTestDatabase.newSchema(hint);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        ds.close();
    }

    /** @return the pool */
    public HikariDataSource dataSource() {
        return ds;
    }

    /** @return the schema's name */
    public String schema() {
        return schema;
    }

    /** Runs {@code sql} (one or more statements) on the schema. */
    public void sql(String sql) {
        SharedTestDatabase.exec(ds, "SET search_path TO " + schema + "; " + sql);
    }
}
