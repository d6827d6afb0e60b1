package io.gendurable.impl.cdi;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.GenDurableDataSource;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NewInstance;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.engine.Engine;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Reception;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

import javax.sql.DataSource;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The injectable {@link GenDurable}: an application-scoped bean that builds the core
 * {@link Engine} from the validated configuration, the resolved DataSource and executors, and
 * the FSM beans the {@link GenDurableExtension} found. It starts with the application and drains
 * before the application's beans are destroyed.
 */
@ApplicationScoped
public class DurableBean implements GenDurable {
    private static final Logger LOG = System.getLogger("io.gendurable.cdi");

    @Inject
    GenDurableExtension extension;

    @Inject
    @GenDurableDataSource
    Instance<DataSource> applicationDataSource;

    @Inject
    jakarta.enterprise.event.Event<Object> cdiEvents;

    private volatile Engine engine;
    private volatile boolean stopped;
    private ResolvedDataSource dataSource;
    private EngineExecutors executors;

    /** For the container. */
    public DurableBean() {
    }

    /**
     * Starts the engine when the application starts, before other observers of the same event
     * (which may already insert).
     *
     * @param event the application context's initialization
     */
    void onApplicationStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE)
                            @Initialized(ApplicationScoped.class) Object event) {
        engine();
    }

    /**
     * Drains while the application's beans (FSMs among them) still exist.
     *
     * @param event the application context's coming destruction
     */
    void onApplicationStop(@Observes(notifyObserver = Reception.IF_EXISTS)
                           @BeforeDestroyed(ApplicationScoped.class) Object event) {
        stop();
    }

    /** Drains when this bean is destroyed without the event above (idempotent). */
    @PreDestroy
    void destroy() {
        stop();
    }

    /**
     * @return the started engine (starting it on first use)
     * @throws io.gendurable.EngineStoppedException when the application has stopped
     */
    public Engine engine() {
        Engine e = engine;
        if (e != null && !stopped) {
            return e;  // every call after start: no lock on the insert path
        }
        synchronized (this) {
            if (stopped) {
                throw new io.gendurable.EngineStoppedException("gen-durable has stopped with the application");
            }
            if (engine == null) {
                engine = start();
            }
            return engine;
        }
    }

    /** @return the engine if it has been built and started (even if stopped since), else null; never starts it (health checks) */
    Engine builtEngine() {
        return engine;
    }

    private Engine start() {
        EngineSettings settings = extension.settings();
        JndiLookup jndi = JndiLookup.initialContext();
        // lookups and checks first; the pools, the migration and the threads come last
        EngineExecutors ex = new ExecutorResolver(settings.reader(), settings.config(), jndi).resolve();
        ResolvedDataSource ds = null;
        Engine e = null;
        try {
            ds = new DataSourceResolver(settings.reader(), settings.config(), jndi)
                    .resolve(DataSourceResolver.bean(applicationDataSource));
            LOG.log(Level.INFO, "gen-durable uses " + ds.origin() + "; executors " + ex.origin());
            ContainerEvents events = ContainerEvents.create(cdiEvents);
            e = Engine.builder().config(settings.config()).dataSource(ds.dataSource()).registry(extension.registry())
                    .timer(ex.timer()).steps(ex.steps()).events(events)
                    .callerTransactions(JtaCallerTransactions.lookup(jndi,
                            settings.reader().get(ConfigKeys.JTA_DATASOURCE)))
                    .build();
            events.registerGauges(e);
            e.start();
        } catch (RuntimeException | Error failure) {
            closeQuietly(e, ds, ex, failure);
            throw failure;
        }
        this.dataSource = ds;
        this.executors = ex;
        return e;
    }

    private static void closeQuietly(Engine e, ResolvedDataSource ds, EngineExecutors ex, Throwable failure) {
        try {
            if (e != null) {
                e.stop();
            }
        } catch (RuntimeException suppressed) {
            failure.addSuppressed(suppressed);
        }
        if (ds != null) {
            ds.close();
        }
        ex.close();
    }

    /** Drains the engine, then shuts down what this layer created: its executors and its own pool. Idempotent. */
    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        if (engine == null) {
            return;
        }
        try {
            engine.stop();
        } finally {
            executors.close();
            dataSource.close();
            extension.releaseFsmInstances();
        }
    }

    @Override
    public <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state) {
        return engine().insert(fsm, state);
    }

    @Override
    public <S> Inserted insert(Class<? extends Fsm<S>> fsm, S state, InsertOptions options) {
        return engine().insert(fsm, state, options);
    }

    @Override
    public Inserted insert(NewInstance instance) {
        return engine().insert(instance);
    }

    @Override
    public List<Inserted> insertAll(List<NewInstance> instances) {
        return engine().insertAll(instances);
    }

    @Override
    public Optional<InstanceSnapshot> find(long id) {
        return engine().find(id);
    }

    @Override
    public Optional<InstanceSnapshot> find(String correlationKey) {
        return engine().find(correlationKey);
    }

    @Override
    public SignalResult signal(SignalTarget target, String name, Object payload) {
        return engine().signal(target, name, payload);
    }

    @Override
    public SignalResult signal(SignalTarget target, String name, Object payload, String dedupKey) {
        return engine().signal(target, name, payload, dedupKey);
    }

    @Override
    public AwaitResult await(long id, Duration timeout) {
        return engine().await(id, timeout);
    }

    @Override
    public AwaitResult await(long id, Duration timeout, AwaitUntil until) {
        return engine().await(id, timeout, until);
    }
}
