package io.gendurable.impl.db;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The engine's statements, each built once per schema and shared by every service that runs it.
 * A statement class ({@code *Sql}) holds the SQL texts of one package's database verbs (the
 * claim, the flush, the heartbeat and reaper, the buckets…), spliced with the schema name once;
 * the package that owns it asks for it here, so a second scheduler, the drain runner and the
 * flush's riders all run the same instance. Thread-safe; building is cheap and happens at
 * engine construction.
 */
public final class Statements {
    private final SchemaName schema;
    private final Map<Class<?>, Object> built = new HashMap<>();

    /** @param schema the schema every statement names */
    public Statements(SchemaName schema) {
        this.schema = Objects.requireNonNull(schema, "schema");
    }

    /** @return the schema every statement names */
    public SchemaName schema() {
        return schema;
    }

    /**
     * @param type  the statement class
     * @param build how to build it for a schema, called once (it may ask for other statements)
     * @return the one instance of {@code type} for this schema
     */
    public synchronized <T> T of(Class<T> type, Function<SchemaName, T> build) {
        Object s = built.get(type);
        if (s == null) {
            s = Objects.requireNonNull(build.apply(schema), "built statement");
            built.put(type, s);
        }
        return type.cast(s);
    }
}
