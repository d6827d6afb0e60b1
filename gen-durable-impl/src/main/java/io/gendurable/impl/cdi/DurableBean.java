package io.gendurable.impl.cdi;

import io.gendurable.AwaitResult;
import io.gendurable.AwaitUntil;
import io.gendurable.BulkResult;
import io.gendurable.Cancellation;
import io.gendurable.DurableEngine;
import io.gendurable.DurableOperations;
import io.gendurable.EngineStoppedException;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.GenDurableDataSource;
import io.gendurable.InsertOptions;
import io.gendurable.Inserted;
import io.gendurable.InstanceDetails;
import io.gendurable.InstancePage;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NewInstance;
import io.gendurable.NodeStatus;
import io.gendurable.OperationsSummary;
import io.gendurable.PausedQueue;
import io.gendurable.RetryOptions;
import io.gendurable.ScheduleDefinition;
import io.gendurable.ScheduleStatus;
import io.gendurable.SignalResult;
import io.gendurable.SignalTarget;
import io.gendurable.impl.cdi.health.CheckedEngine;
import io.gendurable.impl.engine.Engine;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Reception;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The injectable {@link GenDurable} and {@link DurableOperations} (one bean, both types): an application-scoped
 * bean that has {@link ContainerEngine} build the core {@link Engine} from the validated configuration, the
 * resolved DataSource and executors, and
 * the FSM beans the {@link GenDurableExtension} found (read through {@link EngineDeployment}). It starts with the application and drains
 * before the application's beans are destroyed. This class is the default engine; the extension adds
 * one more bean of it per named engine (qualified {@link DurableEngine @DurableEngine(name)}).
 */
@ApplicationScoped
@Default
@DurableEngine
public class DurableBean implements GenDurable, DurableOperations, CheckedEngine {
    @Inject
    EngineDeployment extension;

    @Inject
    @GenDurableDataSource
    Instance<DataSource> applicationDataSource;

    @Inject
    Event<Object> cdiEvents;

    @Inject
    BeanManager beanManager;

    private String engineName = DurableEngine.DEFAULT;
    private volatile Engine engine;
    // stopping: the drain began (no new engine is started); stopped: the engine has stopped. Between
    // the two, the engine is served: steps the drain waits for may call it (insert, signal, await).
    private volatile boolean stopping;
    private volatile boolean stopped;
    // the engine's resources (executors, pools, metrics), closed once it stopped
    private ContainerEngine started;

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
    DurableBean(String engineName, EngineDeployment extension, BeanManager beanManager) {
        this.engineName = engineName;
        this.extension = extension;
        this.beanManager = beanManager;
        this.cdiEvents = beanManager.getEvent();
    }

    /** @return the engine's name ({@link DurableEngine#DEFAULT} for this class's own bean) */
    @Override
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
     * @throws EngineStoppedException when the application has stopped
     */
    public Engine engine() {
        Engine e = engine;
        if (e != null && !stopped) {
            return e;  // every call after start: no lock on the insert path
        }
        synchronized (this) {
            if (stopped || stopping && engine == null) {
                throw new EngineStoppedException("gen-durable " + (DurableEngine.DEFAULT.equals(engineName) ? ""
                        : "engine " + engineName + " ") + "has stopped with the application");
            }
            if (engine == null) {
                engine = start();
            }
            return engine;
        }
    }

    /** @return the engine if it has been built and started (even if stopped since), else null; never starts it (health checks) */
    @Override
    public Engine builtEngine() {
        return engine;
    }

    private Engine start() {
        ContainerEngine c = ContainerEngine.start(engineName, extension.settings(engineName), extension.registry(engineName),
                DurableEngine.DEFAULT.equals(engineName) ? applicationDataSource : null, beanManager, cdiEvents);
        this.started = c;
        return c.engine();
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
            started.close();
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
    public List<NodeStatus> nodes() {
        return engine().operations().nodes();
    }

    @Override
    public Cancellation cancel(long id, String reason) {
        return engine().operations().cancel(id, reason);
    }

    @Override
    public Cancellation cancel(long id, String reason, boolean withDescendants) {
        return engine().operations().cancel(id, reason, withDescendants);
    }

    @Override
    public InstanceSnapshot retry(long id) {
        return engine().operations().retry(id);
    }

    @Override
    public InstanceSnapshot retry(long id, RetryOptions options) {
        return engine().operations().retry(id, options);
    }

    @Override
    public InstanceSnapshot runNow(long id) {
        return engine().operations().runNow(id);
    }

    @Override
    public InstanceSnapshot reschedule(long id, Instant at) {
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
    public List<PausedQueue> pausedQueues() {
        return engine().operations().pausedQueues();
    }

    @Override
    public BulkResult cancelAll(InstanceQuery query, String reason) {
        return engine().operations().cancelAll(query, reason);
    }

    @Override
    public BulkResult retryAll(InstanceQuery query) {
        return engine().operations().retryAll(query);
    }

    @Override
    public BulkResult purge(InstanceQuery query) {
        return engine().operations().purge(query);
    }

    @Override
    public List<ScheduleStatus> schedules() {
        return engine().operations().schedules();
    }

    @Override
    public ScheduleStatus defineSchedule(ScheduleDefinition definition) {
        return engine().operations().defineSchedule(definition);
    }

    @Override
    public boolean removeSchedule(String name) {
        return engine().operations().removeSchedule(name);
    }

    @Override
    public ScheduleStatus pauseSchedule(String name, String reason) {
        return engine().operations().pauseSchedule(name, reason);
    }

    @Override
    public ScheduleStatus resumeSchedule(String name) {
        return engine().operations().resumeSchedule(name);
    }

    @Override
    public Inserted triggerSchedule(String name) {
        return engine().operations().triggerSchedule(name);
    }
}
