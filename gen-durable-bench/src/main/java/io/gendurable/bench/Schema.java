package io.gendurable.bench;

import com.zaxxer.hikari.HikariDataSource;

/**
 * A fresh schema for one measurement, {@code bench_<hint>_<pid>_<n>}, dropped on close unless
 * {@code --keep-schemas}. The engine creates it (Flyway) when its first node starts.
 */
record Schema(String name, BenchDb db, boolean keep) implements AutoCloseable {
    /** @return a new name; nothing is created yet */
    static Schema fresh(BenchDb db, Options o, String hint) {
        return new Schema(BenchDb.newSchema(hint), db, o.keepSchemas);
    }

    /** @return the engine's instances table in this schema */
    String instances() {
        return name + ".gen_durable";
    }

    @Override
    public void close() {
        if (keep) {
            return;
        }
        try (HikariDataSource admin = db.pool("bench-drop", 1)) {
            BenchDb.exec(admin, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
        } catch (RuntimeException e) {
            Bench.log("could not drop schema " + name + ": " + e);
        }
    }
}
