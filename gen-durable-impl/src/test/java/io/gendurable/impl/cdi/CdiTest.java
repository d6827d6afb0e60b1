package io.gendurable.impl.cdi;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * What every test that boots the CDI layer shares: the system properties it set through
 * {@link CdiTestSupport#property} are cleared after each test, and {@link #db} is a small pool on
 * the tests' database for checks made outside the container.
 */
abstract class CdiTest {
    static HikariDataSource db;

    @BeforeAll
    static void openDatabase() {
        db = SharedTestDatabase.dataSource(2);
    }

    @AfterAll
    static void closeDatabase() {
        db.close();
    }

    @AfterEach
    void clearProperties() {
        CdiTestSupport.clearProperties();
    }
}
