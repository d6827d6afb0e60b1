package io.gendurable.impl.cdi;

import io.gendurable.DurableEngine;
import io.gendurable.impl.cdi.metrics.ContainerEvents;
import io.gendurable.impl.cdi.metrics.MetricsChoice;
import io.gendurable.impl.cdi.metrics.OpenTelemetryLookup;
import io.gendurable.impl.cdi.resources.DataSourceResolver;
import io.gendurable.impl.cdi.resources.EngineExecutors;
import io.gendurable.impl.cdi.resources.ExecutorResolver;
import io.gendurable.impl.cdi.resources.JndiLookup;
import io.gendurable.impl.cdi.resources.JtaCallerTransactions;
import io.gendurable.impl.cdi.resources.OptionalApis;
import io.gendurable.impl.cdi.resources.ResolvedDataSource;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.trace.Tracing;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.CDI;

import javax.sql.DataSource;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.security.Principal;
import java.util.Optional;

/**
 * One engine built from the container's resources, and what this layer made for it: its
 * executors, its DataSources (with any pool of its own) and its metrics. Built and started by
 * {@link #start}; {@link #close()} releases the resources once the engine has stopped.
 */
final class ContainerEngine {
    private static final Logger LOG = System.getLogger("io.gendurable.cdi");

    private final Engine engine;
    private final ResolvedDataSource dataSource;
    // gendurable.session.*: the migrations' and the poke listener's DataSource, or null (the engine's serves)
    private final ResolvedDataSource sessionDataSource;
    private final EngineExecutors executors;
    private final ContainerEvents events;

    private ContainerEngine(Engine engine, ResolvedDataSource dataSource, ResolvedDataSource sessionDataSource,
                            EngineExecutors executors, ContainerEvents events) {
        this.engine = engine;
        this.dataSource = dataSource;
        this.sessionDataSource = sessionDataSource;
        this.executors = executors;
        this.events = events;
    }

    /**
     * Looks up and checks first; the pools, the migration and the threads come last. On failure,
     * whatever was made is closed.
     *
     * @param engineName     the engine's name
     * @param settings       its validated configuration
     * @param registry       its FSMs
     * @param applicationDataSource the {@code @GenDurableDataSource} beans (the default engine's), or null (a named engine)
     * @param beanManager    the container: which CDI events are observed
     * @param cdiEvents      where the CDI events go
     * @return the started engine and its resources
     */
    static ContainerEngine start(String engineName, EngineSettings settings, FsmRegistry registry,
                                 Instance<DataSource> applicationDataSource, BeanManager beanManager,
                                 Event<Object> cdiEvents) {
        boolean named = !DurableEngine.DEFAULT.equals(engineName);
        JndiLookup jndi = JndiLookup.initialContext();
        EngineExecutors ex = new ExecutorResolver(settings.reader(), settings.config(), jndi).resolve();
        ResolvedDataSource ds = null;
        ResolvedDataSource session = null;
        ContainerEvents started = null;  // closed on failure once its gauges are registered
        Engine e = null;
        try {
            DataSourceResolver resolver = new DataSourceResolver(settings.reader(), settings.config(), jndi);
            ds = resolver.resolve(named ? Optional.empty() : DataSourceResolver.bean(applicationDataSource));
            session = resolver.resolveSession().orElse(null);
            ContainerEvents events = metrics(engineName, settings, cdiEvents);
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
                    .sessionDataSource(session == null ? null : session.dataSource()).registry(registry)
                    .timer(ex.timer()).steps(ex.steps()).probeThreads(ex.probeThreads()).events(events)
                    .principal(ContainerEngine::callerPrincipal)
                    .tracing(tracing())
                    .callerTransactions(JtaCallerTransactions.lookup(jndi,
                            settings.reader().get(ConfigKeys.JTA_DATASOURCE)))
                    .build();
            events.registerGauges(e);
            started = events;
            e.start();
        } catch (RuntimeException | Error failure) {
            if (started != null) {
                started.close();
            }
            closeQuietly(e, ds, session, ex, failure);
            if (named && failure instanceof IllegalStateException) {
                // the resolvers name the plain keys; say which engine's namespace they are read from
                throw new IllegalStateException("gen-durable engine " + engineName + " (its keys are read under "
                        + EngineSettings.namespace(engineName) + "): " + failure.getMessage(), failure);
            }
            throw failure;
        }
        return new ContainerEngine(e, ds, session, ex, started);
    }

    /** @return the engine */
    Engine engine() {
        return engine;
    }

    /** Closes what this layer made for the engine, which has stopped: its metrics, executors and pools. */
    void close() {
        events.close();
        executors.close();
        dataSource.close();
        if (sessionDataSource != null) {
            sessionDataSource.close();
        }
    }

    /**
     * @return the engine's events, with metrics through the backends of its {@code metrics.backend},
     * tagged with its name
     * @throws io.gendurable.impl.config.ConfigException naming the key (under a named engine's namespace)
     */
    private static ContainerEvents metrics(String engineName, EngineSettings settings, Event<Object> cdiEvents) {
        try {
            return ContainerEvents.create(cdiEvents, MetricsChoice.read(settings.reader()), engineName);
        } catch (IllegalArgumentException e) {
            throw DurableEngine.DEFAULT.equals(engineName) ? e : EngineSettings.underNamespace(engineName, e);
        }
    }

    /** @return step spans through the container's OpenTelemetry when its API is visible, else none (docs/tracing.md) */
    private static Tracing tracing() {
        // a lambda-free guard: OpenTelemetryLookup (and the API) load only when the API is visible
        return OptionalApis.present(OptionalApis.OPENTELEMETRY) ? OpenTelemetryLookup.tracing() : Tracing.NONE;
    }

    /** @return the caller's principal name (CDI's built-in {@code Principal} bean), or null when unauthenticated */
    static String callerPrincipal() {
        try {
            Principal p = CDI.current().select(Principal.class).get();
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
}
