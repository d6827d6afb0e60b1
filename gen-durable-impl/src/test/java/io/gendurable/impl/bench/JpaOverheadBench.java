package io.gendurable.impl.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.EnginePersistence;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.lease.LeaseSql;
import io.gendurable.testing.SharedTestDatabase;

import java.sql.Connection;
import java.time.Instant;
import java.util.List;

/**
 * A benchmark, not a test: what the engine pays for running its statements through a
 * Jakarta Persistence resource-local transaction ({@code EntityManager} + {@code Session.doReturningWork})
 * instead of a bare JDBC transaction on the same pool. Prints microseconds per transaction.
 * Run from {@code gen-durable-impl}:
 * <pre>
 * mvn -q test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp "$(cat /tmp/cp.txt):target/classes:target/test-classes" io.gendurable.impl.bench.JpaOverheadBench 20000
 * </pre>
 */
public final class JpaOverheadBench {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        SchemaName schema = new SchemaName(SharedTestDatabase.newSchema("jpa_bench"));
        try (HikariDataSource ds = SharedTestDatabase.dataSource(4)) {
            Migrations.migrate(ds, schema);
            LeaseSql sql = new LeaseSql(schema);
            java.util.Map<Long, Long> ids = new java.util.TreeMap<>();
            for (long i = 1; i <= 10; i++) {
                ids.put(i, i);
            }
            try (Db db = new Db(EnginePersistence.create(ds, schema))) {
                for (int round = 0; round < 3; round++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        db.inTransaction(c -> sql.heartbeat(c, "w", ids, Instant.now()));
                    }
                    double jpa = (System.nanoTime() - t0) / 1e3 / n;
                    t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        try (Connection c = ds.getConnection()) {
                            c.setAutoCommit(false);
                            sql.heartbeat(c, "w", ids, Instant.now());
                            c.commit();
                            c.setAutoCommit(true);
                        }
                    }
                    double jdbc = (System.nanoTime() - t0) / 1e3 / n;
                    System.out.printf("{\"round\":%d,\"transactions\":%d,\"jpa_us\":%.1f,\"jdbc_us\":%.1f,\"overhead_us\":%.1f}%n",
                            round, n, jpa, jdbc, jpa - jdbc);
                }
            }
        }
        System.exit(0);
    }
}
