package io.gendurable.impl.cdi;

import io.gendurable.DurableEngine;
import io.gendurable.DurableFsm;
import io.gendurable.DurableOperations;
import io.gendurable.Fsm;
import io.gendurable.GenDurable;
import io.gendurable.GenDurableDataSource;
import io.gendurable.impl.cdi.health.HealthChecks;
import io.gendurable.impl.cdi.health.LivenessCheck;
import io.gendurable.impl.cdi.health.ReadinessCheck;
import io.gendurable.impl.cdi.metrics.MeterRegistryLookup;
import io.gendurable.impl.cdi.metrics.MetricRegistryLookup;
import io.gendurable.impl.cdi.metrics.MetricsChoice;
import io.gendurable.impl.cdi.metrics.OpenTelemetryLookup;
import io.gendurable.impl.cdi.resources.DataSourceResolver;
import io.gendurable.impl.cdi.resources.OptionalApis;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AfterTypeDiscovery;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Decorator;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.Interceptor;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.ProcessManagedBean;

import jakarta.enterprise.util.AnnotationLiteral;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The portable extension: finds every managed bean implementing {@link Fsm} (so every
 * {@link io.gendurable.Job}), fails the deployment when two claim one name and version (naming
 * both classes), reads and validates the {@code gendurable.*} configuration before anything
 * starts, and adds {@link DurableBean} when bean discovery has not found it, and the beans that need an
 * optional API (MicroProfile Metrics: {@link MetricRegistryLookup}; Micrometer: {@link MeterRegistryLookup};
 * OpenTelemetry: {@link OpenTelemetryLookup}; MicroProfile Health: {@link ReadinessCheck} and {@link LivenessCheck},
 * and a readiness and a liveness check per named engine) only when that API is on the class path.
 * For each named engine of {@code gendurable.engines} it adds a {@link DurableBean} qualified
 * {@link DurableEngine @DurableEngine(name)} with its own FSM registry (the FSM beans whose
 * {@link DurableFsm#engine()} names it), starts it with the application and drains it before the
 * application's beans are destroyed.
 */
public class GenDurableExtension implements Extension, EngineDeployment {
    private final List<Bean<?>> fsmBeans = new ArrayList<>();
    private final Map<String, List<FsmReference>> references = new LinkedHashMap<>();
    private final Map<String, DurableBean> namedEngines = new LinkedHashMap<>();
    private boolean durableBeanDiscovered;
    private volatile Map<String, FsmRegistry> registries = Map.of();
    private volatile List<String> engineNames = List.of();
    private volatile EngineSettings settings;
    private volatile Map<String, EngineSettings> namedSettings = Map.of();
    /** Engine names and FSMs naming no engine: reported at deployment validation, with the configuration's problems
     *  (as one-line deployment problems, which servers such as Open Liberty relay whole). */
    private final List<RuntimeException> engineProblems = new ArrayList<>();

    /** Created by the container through {@link java.util.ServiceLoader}. */
    public GenDurableExtension() {
    }

    void noteDurableBean(@Observes ProcessAnnotatedType<DurableBean> event) {
        durableBeanDiscovered = true;
    }

    void addDurableBean(@Observes AfterTypeDiscovery event) {
        // The impl jar is an annotated bean archive, but Weld SE without discovery, or a
        // container that does not scan library jars, would not see DurableBean: add it once.
        if (!durableBeanDiscovered) {
            event.addAnnotatedType(DurableBean.class, GenDurableExtension.class.getName() + "#DurableBean");
        }
        if (OptionalApis.present(OptionalApis.MICROPROFILE_METRICS)) {
            event.addAnnotatedType(MetricRegistryLookup.class, GenDurableExtension.class.getName() + "#MetricRegistryLookup");
        }
        if (OptionalApis.present(OptionalApis.MICROMETER)) {
            event.addAnnotatedType(MeterRegistryLookup.class, GenDurableExtension.class.getName() + "#MeterRegistryLookup");
        }
        if (OptionalApis.present(OptionalApis.OPENTELEMETRY)) {
            event.addAnnotatedType(OpenTelemetryLookup.class, GenDurableExtension.class.getName() + "#OpenTelemetryLookup");
        }
        if (OptionalApis.present(OptionalApis.MICROPROFILE_HEALTH)) {
            event.addAnnotatedType(ReadinessCheck.class, GenDurableExtension.class.getName() + "#ReadinessCheck");
            event.addAnnotatedType(LivenessCheck.class, GenDurableExtension.class.getName() + "#LivenessCheck");
        }
    }

    <X> void collectFsm(@Observes ProcessManagedBean<X> event) {
        Bean<X> bean = event.getBean();
        if (bean instanceof Interceptor<?> || bean instanceof Decorator<?>) {
            return;
        }
        if (Fsm.class.isAssignableFrom(event.getAnnotatedBeanClass().getJavaClass())) {
            synchronized (fsmBeans) {
                fsmBeans.add(bean);
            }
        }
    }

    void registerFsms(@Observes AfterBeanDiscovery event, BeanManager beanManager) {
        List<String> named;
        try {
            named = EngineSettings.engineNames();
        } catch (IllegalArgumentException e) {
            engineProblems.add(e);  // names the key gendurable.engines and what it accepts
            named = List.of();
        }
        List<String> names = EngineSettings.allNames(named);
        Map<String, FsmRegistry> r = new LinkedHashMap<>();
        names.forEach(n -> r.put(n, new FsmRegistry()));
        List<Bean<?>> beans;
        synchronized (fsmBeans) {
            beans = List.copyOf(fsmBeans);
        }
        for (Bean<?> bean : beans) {
            DurableFsm a = bean.getBeanClass().getAnnotation(DurableFsm.class);
            String engine = a == null ? DurableEngine.DEFAULT : a.engine();
            FsmRegistry target = r.get(engine);
            if (target == null) {
                engineProblems.add(new IllegalArgumentException("@DurableFsm engine on " + bean.getBeanClass().getName()
                        + " names engine " + engine + ", which does not exist; engines: " + String.join(", ", names)
                        + " (named ones are listed in gendurable.engines)"));
                continue;
            }
            FsmReference reference = new FsmReference(beanManager, bean);
            try {
                target.register(FsmDefinition.of(bean.getBeanClass(), reference));
                references.computeIfAbsent(engine, k -> new ArrayList<>()).add(reference);
            } catch (RuntimeException e) {
                // a duplicate (name, version) names both classes; a bad @DurableFsm names its class
                event.addDefinitionError(e);
            }
        }
        registries = Map.copyOf(r);
        engineNames = List.copyOf(named);
        for (String name : named) {
            event.addBean().beanClass(DurableBean.class)
                    .types(DurableBean.class, GenDurable.class, DurableOperations.class, Object.class)
                    .qualifiers(DurableEngineLiteral.of(name), Any.Literal.INSTANCE)
                    .scope(ApplicationScoped.class)
                    .produceWith(instance -> named(name, beanManager))
                    .disposeWith((engine, instance) -> ((DurableBean) engine).stop());
            if (OptionalApis.present(OptionalApis.MICROPROFILE_HEALTH)) {
                HealthChecks.addNamedEngineChecks(event, name, () -> namedEngine(name));
            }
        }
    }

    private DurableBean named(String name, BeanManager beanManager) {
        DurableBean bean = new DurableBean(name, this, beanManager);
        synchronized (namedEngines) {
            namedEngines.put(name, bean);
        }
        return bean;
    }

    /** @param name a named engine @return its bean once the container created it, else null (health checks: never creates it) */
    private DurableBean namedEngine(String name) {
        synchronized (namedEngines) {
            return namedEngines.get(name);
        }
    }

    /** Starts the named engines with the application, just after the default one. */
    void startNamedEngines(@Observes @Priority(jakarta.interceptor.Interceptor.Priority.PLATFORM_BEFORE + 1)
                           @Initialized(ApplicationScoped.class) Object event, BeanManager beanManager) {
        try {
            for (String name : engineNames) {
                beanManager.createInstance().select(DurableBean.class, DurableEngineLiteral.of(name)).get().engine();
            }
        } catch (RuntimeException | Error failure) {
            // the application will not start: leave no engine running (the default one started first)
            stopNamedEngines(event);
            try {
                beanManager.createInstance().select(DurableBean.class).get().stop();
            } catch (RuntimeException suppressed) {
                failure.addSuppressed(suppressed);
            }
            throw failure;
        }
    }

    /** Drains the named engines while the application's beans (their FSMs among them) still exist. */
    void stopNamedEngines(@Observes @BeforeDestroyed(ApplicationScoped.class) Object event) {
        List<DurableBean> started;
        synchronized (namedEngines) {
            started = List.copyOf(namedEngines.values());
        }
        started.forEach(DurableBean::stop);
    }

    void readConfiguration(@Observes AfterDeploymentValidation event, BeanManager beans) {
        engineProblems.forEach(event::addDeploymentProblem);
        try {
            settings = EngineSettings.load();
            MetricsChoice.read(settings.reader());  // a listed backend whose API is absent fails here, before any start
        } catch (IllegalArgumentException e) {
            // ConfigException names the key; failing here means no migration and no thread ran
            event.addDeploymentProblem(e);
        }
        Map<String, EngineSettings> named = new LinkedHashMap<>();
        for (String name : engineNames) {
            try {
                EngineSettings s = EngineSettings.load(name);
                try {
                    MetricsChoice.read(s.reader());  // its own metrics.backend, checked as the default engine's
                } catch (IllegalArgumentException e) {
                    throw EngineSettings.underNamespace(name, e);
                }
                named.put(name, s);
            } catch (IllegalArgumentException e) {
                event.addDeploymentProblem(e);
            }
        }
        namedSettings = Map.copyOf(named);
        if (settings != null) {
            sharedSchemas(event, beans, named);
        }
    }

    /**
     * Two engines on one schema of one DataSource would claim each other's rows (and fail those of
     * FSMs they do not have) and share one node id: a deployment error naming both, before any start.
     */
    private void sharedSchemas(AfterDeploymentValidation event, BeanManager beans, Map<String, EngineSettings> named) {
        boolean bean = !beans.getBeans(DataSource.class,
                new AnnotationLiteral<GenDurableDataSource>() { }).isEmpty();
        Map<String, EngineSettings> all = new LinkedHashMap<>();
        all.put(DurableEngine.DEFAULT, settings);
        all.putAll(named);
        Map<String, String> seen = new LinkedHashMap<>();
        all.forEach((name, s) -> {
            String where = "schema " + s.config().schema().name() + " on "
                    + (DurableEngine.DEFAULT.equals(name) && bean ? "the @GenDurableDataSource DataSource bean" : dataSourceOf(s));
            String other = seen.putIfAbsent(where, name);
            if (other != null) {
                event.addDeploymentProblem(new IllegalStateException("gen-durable engines " + other + " and " + name
                        + " both use " + where + ": two engines on one schema claim (and fail) each other's rows and share"
                        + " one node id. Give engine " + name + " a schema of its own ("
                        + EngineSettings.namespace(name) + "schema) or another DataSource"));
            }
        });
    }

    /** @return the DataSource an engine's keys name: its JNDI name, and the pool it falls back to */
    private static String dataSourceOf(EngineSettings s) {
        Optional<String> url = s.reader().value(ConfigKeys.JDBC_URL);
        return "JNDI " + s.reader().get(ConfigKeys.DATASOURCE)
                + url.map(u -> " (else " + DataSourceResolver.maskPassword(u) + " as "
                + s.reader().get(ConfigKeys.JDBC_USER) + ")").orElse("");
    }

    /** @return the default engine's FSM beans, by name and version (empty before bean discovery ends) */
    public FsmRegistry registry() {
        return registry(DurableEngine.DEFAULT);
    }

    /** @param engine an engine's name @return its FSM beans, by name and version (empty before bean discovery ends) */
    @Override
    public FsmRegistry registry(String engine) {
        FsmRegistry r = registries.get(engine);
        return r == null ? new FsmRegistry() : r;
    }

    /** @return the named engines of {@code gendurable.engines}, without the default one */
    public List<String> engineNames() {
        return engineNames;
    }

    /**
     * @param engine a named engine (the default engine's are {@link #settings()})
     * @return its validated configuration, read at deployment validation
     */
    @Override
    public EngineSettings settings(String engine) {
        if (DurableEngine.DEFAULT.equals(engine)) {
            return settings();
        }
        EngineSettings s = namedSettings.get(engine);
        return s != null ? s : EngineSettings.load(engine);
    }

    /** @return the validated configuration, read at deployment validation */
    public EngineSettings settings() {
        EngineSettings s = settings;
        if (s == null) {
            s = EngineSettings.load();  // deployment validation has not run (a unit use outside a container)
            settings = s;
        }
        return s;
    }

    /** Destroys the {@code @Dependent} FSM instances the default engine used; called after it drained. */
    public void releaseFsmInstances() {
        releaseFsmInstances(DurableEngine.DEFAULT);
    }

    /** @param engine an engine's name: destroys the {@code @Dependent} FSM instances it used; called after it drained */
    @Override
    public void releaseFsmInstances(String engine) {
        references.getOrDefault(engine, List.of()).forEach(FsmReference::release);
    }
}
