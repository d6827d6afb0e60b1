package io.gendurable.impl.cdi;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.DurableEngine;
import io.gendurable.DurableOperations;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.GenDurableDataSource;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceDetails;
import io.gendurable.InstancePage;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceSnapshot;
import io.gendurable.OperationsSummary;
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
import jakarta.enterprise.inject.Default;
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
 * The injectable {@link GenDurable} and {@link DurableOperations} (one bean, both types): an application-scoped bean that builds the core
 * {@link Engine} from the validated configuration, the resolved DataSource and executors, and
 * the FSM beans the {@link GenDurableExtension} found (read through {@link EngineDeployment}). It starts with the application and drains
 * before the application's beans are destroyed. This class is the default engine; the extension adds
 * one more bean of it per named engine (qualified {@link DurableEngine @DurableEngine(name)}).
 */
@ApplicationScoped
@Default
@DurableEngine
public class DurableBean implements GenDurable, DurableOperations {
    private static final Logger LOG = System.getLogger("io.gendurable.cdi");

    @Inject
    EngineDeployment extension;

    @Inject
    @GenDurableDataSource
    Instance<DataSource> applicationDataSource;

    @Inject
    jakarta.enterprise.event.Event<Object> cdiEvents;

    @Inject
    jakarta.enterprise.inject.spi.BeanManager beanManager;

    private String engineName = DurableEngine.DEFAULT;
    private volatile Engine engine;
    // stopping: the drain began (no new engine is started); stopped: the engine has stopped. Between
    // the two, the engine is served: steps the drain waits for may call it (insert, signal, await).
    private volatile boolean stopping;
    private volatile boolean stopped;
    private ResolvedDataSource dataSource;
    // gendurable.session.*: the migrations' and the poke listener's DataSource, or null (the engine's serves)
    private ResolvedDataSource sessionDataSource;
    private EngineExecutors executors;
    private ContainerEvents events;

    /** For the container. */
    public DurableBean() {
    }

    /**
     * A named engine, created by the extension's synthetic bean: its DataSource comes from JNDI or
     * {@code gendurable.engines.<name>.jdbc.*}, never from a {@code @GenDurableDataSource} bean (that
     * bean is the default engine's); its metrics carry its name as their {@code engine} tag.
     *
     * @param engineName the engine's name
     * @param extension  the extension holding its settings and FSMs
     * @param beanManager the container: where its events go, and which of them are observed
     */
    DurableBean(String engineName, EngineDeployment extension, jakarta.enterprise.inject.spi.BeanManager beanManager) {
        this.engineName = engineName;
        this.extension = extension;
        this.beanManager = beanManager;
        this.cdiEvents = beanManager.getEvent();
    }

    /** @return the engine's name ({@link DurableEngine#DEFAULT} for this class's own bean) */
    public String engineName() {
        return engineName;
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
            if (stopped || stopping && engine == null) {
                throw new io.gendurable.EngineStoppedException("gen-durable " + (DurableEngine.DEFAULT.equals(engineName) ? ""
                        : "engine " + engineName + " ") + "has stopped with the application");
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
        boolean named = !DurableEngine.DEFAULT.equals(engineName);
        EngineSettings settings = extension.settings(engineName);
        JndiLookup jndi = JndiLookup.initialContext();
        // lookups and checks first; the pools, the migration and the threads come last
        EngineExecutors ex = new ExecutorResolver(settings.reader(), settings.config(), jndi).resolve();
        ResolvedDataSource ds = null;
        ResolvedDataSource session = null;
        Engine e = null;
        try {
            DataSourceResolver resolver = new DataSourceResolver(settings.reader(), settings.config(), jndi);
            ds = resolver.resolve(named ? java.util.Optional.empty() : DataSourceResolver.bean(applicationDataSource));
            session = resolver.resolveSession().orElse(null);
            ContainerEvents events = metrics(settings);
            LOG.log(Level.INFO, "gen-durable" + (named ? " engine " + engineName + " (schema "
                    + settings.config().schema().name() + ")" : "") + " uses " + ds.origin()
                    + (session == null ? "" : " (migrations and poke listener: " + session.origin() + ")")
                    + "; executors " + ex.origin() + "; "
                    + events.metricsOrigin());
            CdiEventSink observed = CdiEventSink.resolve(beanManager, cdiEvents);
            Engine.Builder builder = Engine.builder();
            if (!observed.types().isEmpty()) {
                builder.listener(observed, observed.types());
            }
            e = builder.config(settings.config()).dataSource(ds.dataSource())
                    .sessionDataSource(session == null ? null : session.dataSource()).registry(extension.registry(engineName))
                    .timer(ex.timer()).steps(ex.steps()).probeThreads(ex.probeThreads()).events(events).principal(DurableBean::callerPrincipal)
                    .tracing(tracing())
                    .callerTransactions(JtaCallerTransactions.lookup(jndi,
                            settings.reader().get(ConfigKeys.JTA_DATASOURCE)))
                    .build();
            events.registerGauges(e);
            this.events = events;
            e.start();
        } catch (RuntimeException | Error failure) {
            if (this.events != null) {
                this.events.close();
                this.events = null;
            }
            closeQuietly(e, ds, session, ex, failure);
            if (named && failure instanceof IllegalStateException) {
                // the resolvers name the plain keys; say which engine's namespace they are read from
                throw new IllegalStateException("gen-durable engine " + engineName + " (its keys are read under "
                        + EngineSettings.namespace(engineName) + "): " + failure.getMessage(), failure);
            }
            throw failure;
        }
        this.dataSource = ds;
        this.sessionDataSource = session;
        this.executors = ex;
        return e;
    }

    /**
     * @return this engine's events, with metrics through the backends of its {@code metrics.backend},
     * tagged with its name
     * @throws io.gendurable.impl.config.ConfigException naming the key (under a named engine's namespace)
     */
    private ContainerEvents metrics(EngineSettings settings) {
        try {
            return ContainerEvents.create(cdiEvents, MetricsChoice.read(settings.reader()), engineName);
        } catch (IllegalArgumentException e) {
            throw DurableEngine.DEFAULT.equals(engineName) ? e : EngineSettings.underNamespace(engineName, e);
        }
    }

    /** @return step spans through the container's OpenTelemetry when its API is visible, else none (docs/tracing.md) */
    private static io.gendurable.impl.trace.Tracing tracing() {
        // a lambda-free guard: OpenTelemetryLookup (and the API) load only when the API is visible
        return OptionalApis.present(OptionalApis.OPENTELEMETRY) ? OpenTelemetryLookup.tracing()
                : io.gendurable.impl.trace.Tracing.NONE;
    }

    /** @return the caller's principal name (CDI's built-in {@code Principal} bean), or null when unauthenticated */
    static String callerPrincipal() {
        try {
            java.security.Principal p = jakarta.enterprise.inject.spi.CDI.current().select(java.security.Principal.class).get();
            String name = p == null ? null : p.getName();
            return name == null || name.isBlank() || "UNAUTHENTICATED".equals(name) || "anonymous".equals(name) ? null : name;
        } catch (RuntimeException | LinkageError e) {
            return null;  // no security context (a background thread, a container without one)
        }
    }

    private static void closeQuietly(Engine e, ResolvedDataSource ds, ResolvedDataSource session, EngineExecutors ex,
                                     Throwable failure) {
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
        if (session != null) {
            session.close();
        }
        ex.close();
    }

    /**
     * Drains the engine, then shuts down what this layer created: its executors and its own pool.
     * Idempotent. No lock is held across the drain: the steps it waits for are served by
     * {@link #engine()} until the engine has stopped.
     */
    void stop() {
        Engine e;
        synchronized (this) {
            if (stopping) {
                return;
            }
            stopping = true;
            e = engine;
            if (e == null) {
                stopped = true;
                return;
            }
        }
        try {
            e.stop();
        } finally {
            stopped = true;
            if (events != null) {
                events.close();
            }
            executors.close();
            dataSource.close();
            if (sessionDataSource != null) {
                sessionDataSource.close();
            }
            extension.releaseFsmInstances(engineName);
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

    @Override
    public InstancePage search(InstanceQuery query) {
        return engine().operations().search(query);
    }

    @Override
    public Optional<InstanceDetails> inspect(long id) {
        return engine().operations().inspect(id);
    }

    @Override
    public OperationsSummary summary() {
        return engine().operations().summary();
    }

    @Override
    public List<io.gendurable.NodeStatus> nodes() {
        return engine().operations().nodes();
    }

    @Override
    public io.gendurable.Cancellation cancel(long id, String reason) {
        return engine().operations().cancel(id, reason);
    }

    @Override
    public io.gendurable.Cancellation cancel(long id, String reason, boolean withDescendants) {
        return engine().operations().cancel(id, reason, withDescendants);
    }

    @Override
    public InstanceSnapshot retry(long id) {
        return engine().operations().retry(id);
    }

    @Override
    public InstanceSnapshot retry(long id, io.gendurable.RetryOptions options) {
        return engine().operations().retry(id, options);
    }

    @Override
    public InstanceSnapshot runNow(long id) {
        return engine().operations().runNow(id);
    }

    @Override
    public InstanceSnapshot reschedule(long id, java.time.Instant at) {
        return engine().operations().reschedule(id, at);
    }

    @Override
    public InstanceSnapshot changePriority(long id, int priority) {
        return engine().operations().changePriority(id, priority);
    }

    @Override
    public DurableOperations actingFor(String operator) {
        return engine().operations().actingFor(operator);
    }

    @Override
    public void pauseQueue(String queue, String reason) {
        engine().operations().pauseQueue(queue, reason);
    }

    @Override
    public boolean resumeQueue(String queue) {
        return engine().operations().resumeQueue(queue);
    }

    @Override
    public List<io.gendurable.PausedQueue> pausedQueues() {
        return engine().operations().pausedQueues();
    }

    @Override
    public io.gendurable.BulkResult cancelAll(InstanceQuery query, String reason) {
        return engine().operations().cancelAll(query, reason);
    }

    @Override
    public io.gendurable.BulkResult retryAll(InstanceQuery query) {
        return engine().operations().retryAll(query);
    }

    @Override
    public io.gendurable.BulkResult purge(InstanceQuery query) {
        return engine().operations().purge(query);
    }

    @Override
    public List<io.gendurable.ScheduleStatus> schedules() {
        return engine().operations().schedules();
    }

    @Override
    public io.gendurable.ScheduleStatus defineSchedule(io.gendurable.ScheduleDefinition definition) {
        return engine().operations().defineSchedule(definition);
    }

    @Override
    public boolean removeSchedule(String name) {
        return engine().operations().removeSchedule(name);
    }

    @Override
    public io.gendurable.ScheduleStatus pauseSchedule(String name, String reason) {
        return engine().operations().pauseSchedule(name, reason);
    }

    @Override
    public io.gendurable.ScheduleStatus resumeSchedule(String name) {
        return engine().operations().resumeSchedule(name);
    }

    @Override
    public Inserted triggerSchedule(String name) {
        return engine().operations().triggerSchedule(name);
    }
}
