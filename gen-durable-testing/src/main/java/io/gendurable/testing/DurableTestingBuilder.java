package io.gendurable.testing;

import io.gendurable.Fsm;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.ConfigReader;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.PokeTransport;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.json.Json;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Builds a {@link DurableTesting}: an engine on its own schema that starts no thread (its
 * executors are shut down before it is built, so any attempt to use one fails loudly). Reaper,
 * GC and the postgres poke are off; it serves the queues of {@code gendurable.queues}, as a node
 * with that configuration does (default: {@code default} only).
 */
public final class DurableTestingBuilder {
    private DataSource dataSource;
    private String schema;
    private String schemaHint = "test";
    private final List<Class<?>> fsmClasses = new ArrayList<>();
    private final List<Fsm<?>> fsms = new ArrayList<>();
    private final Map<String, String> config = new LinkedHashMap<>();
    private TestClock clock;
    private boolean dropSchemaOnClose = true;

    DurableTestingBuilder() {
    }

    /** @param v the database (default: {@code GENDURABLE_TEST_DB_URL}, else an embedded PostgreSQL) @return this */
    public DurableTestingBuilder dataSource(DataSource v) {
        this.dataSource = Objects.requireNonNull(v, "dataSource must not be null");
        return this;
    }

    /** @param v the schema (default: a fresh one, dropped on close) @return this */
    public DurableTestingBuilder schema(String v) {
        this.schema = new SchemaName(v).name();
        return this;
    }

    /** @param v a readable part of the fresh schema's name, e.g. the test class @return this */
    public DurableTestingBuilder schemaHint(String v) {
        this.schemaHint = Objects.requireNonNull(v, "schemaHint must not be null");
        return this;
    }

    /** @param v FSM classes, each made through its no-argument constructor @return this */
    public DurableTestingBuilder fsms(Class<?>... v) {
        fsmClasses.addAll(List.of(v));
        return this;
    }

    /** @param v FSM objects (for FSMs that need arguments or fields set) @return this */
    public DurableTestingBuilder fsm(Fsm<?>... v) {
        fsms.addAll(List.of(v));
        return this;
    }

    /**
     * @param key   a {@code gendurable.*} key (docs/configuration.md), e.g. {@code gendurable.rate-limits.psp.allowed}
     * @param value its value
     * @return this
     */
    public DurableTestingBuilder config(String key, String value) {
        config.put(Objects.requireNonNull(key, "key must not be null"), Objects.requireNonNull(value, "value must not be null"));
        return this;
    }

    /**
     * Reads the {@code gendurable.*} keys of a properties file on the class path, such as the
     * application's {@code META-INF/microprofile-config.properties}; keys set by {@link #config}
     * win.
     *
     * @param resource the resource's path
     * @return this
     * @throws IllegalArgumentException when the resource does not exist
     */
    public DurableTestingBuilder configFile(String resource) {
        Properties p = new Properties();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try (InputStream in = (loader != null ? loader : DurableTestingBuilder.class.getClassLoader())
                .getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("configFile: no resource '" + resource + "' on the class path");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("configFile: cannot read '" + resource + "'", e);
        }
        p.stringPropertyNames().stream().filter(k -> k.startsWith("gendurable."))
                .forEach(k -> config.putIfAbsent(k, p.getProperty(k)));
        return this;
    }

    /** @param v the clock (default: a new {@link TestClock} at the current instant) @return this */
    public DurableTestingBuilder clock(TestClock v) {
        this.clock = Objects.requireNonNull(v, "clock must not be null");
        return this;
    }

    /** @param v whether {@link DurableTesting#close()} drops the schema (default true) @return this */
    public DurableTestingBuilder dropSchemaOnClose(boolean v) {
        this.dropSchemaOnClose = v;
        return this;
    }

    /**
     * Builds the engine and installs its schema.
     *
     * @return the test handle; close it after the test
     * @throws io.gendurable.impl.config.ConfigException for a bad {@code gendurable.*} key, naming it
     */
    public DurableTesting build() {
        FsmRegistry registry = new FsmRegistry();
        for (Class<?> c : fsmClasses) {
            registry.register(FsmDefinition.of(instantiate(c)));
        }
        fsms.forEach(f -> registry.register(FsmDefinition.of(f)));
        EngineConfig read = ConfigReader.of(config).read();
        String schemaName = schema != null ? schema : TestDatabase.newSchema(schemaHint);
        EngineConfig cfg = read.toBuilder().schema(schemaName)
                .migrateAtStart(true)
                .poke(PokeTransport.LOCAL)
                .set(ConfigKeys.REAPER_ENABLED, false)
                .set(ConfigKeys.GC_ENABLED, false)
                .build();
        DataSource ds = dataSource != null ? dataSource : TestDatabase.dataSource();
        TestClock testClock = clock != null ? clock : new TestClock();
        Json json = new Json();
        // No engine thread: both executors are shut down before the engine sees them.
        ScheduledExecutorService none = Executors.newSingleThreadScheduledExecutor();
        none.shutdown();
        Engine engine = Engine.builder().dataSource(ds).config(cfg).registry(registry).timer(none).steps(none)
                .clock(testClock).json(json).build();
        boolean drop = dropSchemaOnClose;
        Runnable onClose = () -> {
            try {
                json.close();
            } catch (Exception ignored) {
                // JSON-B holds nothing worth reporting at close
            }
            if (drop) {
                Migrations.dropSchema(ds, new SchemaName(schemaName));
            }
        };
        try {
            engine.prepare();
        } catch (RuntimeException e) {
            engine.stop();
            onClose.run();
            throw e;
        }
        DurableTesting testing = new DurableTesting(engine, testClock, json, onClose);
        if (schema == null) {
            testing.warmUp(json);
        }
        return testing;
    }

    private static Fsm<?> instantiate(Class<?> c) {
        if (!Fsm.class.isAssignableFrom(c)) {
            throw new IllegalArgumentException(c.getName() + " does not implement " + Fsm.class.getName());
        }
        try {
            Constructor<?> ctor = c.getDeclaredConstructor();
            ctor.setAccessible(true);
            return (Fsm<?>) ctor.newInstance();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(c.getName() + " has no no-argument constructor: register an object "
                    + "instead (DurableTesting.register(new " + c.getSimpleName() + "(…)))", e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot make an instance of " + c.getName() + ": " + e, e);
        }
    }
}
