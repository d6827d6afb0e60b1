package io.gendurable.impl.cdi;

import io.gendurable.Fsm;
import io.gendurable.impl.fsm.FsmDefinition;
import io.gendurable.impl.fsm.FsmRegistry;
import jakarta.enterprise.event.Observes;
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

import java.util.ArrayList;
import java.util.List;

/**
 * The portable extension: finds every managed bean implementing {@link Fsm} (so every
 * {@link io.gendurable.Job}), fails the deployment when two claim one name and version (naming
 * both classes), reads and validates the {@code gendurable.*} configuration before anything
 * starts, and adds {@link DurableBean} when bean discovery has not found it, and the beans that need an
 * optional API (MicroProfile Metrics: {@link MetricRegistryLookup}; Micrometer: {@link MeterRegistryLookup};
 * MicroProfile Health: {@link ReadinessCheck} and {@link LivenessCheck}) only when that API is on the class path.
 */
public class GenDurableExtension implements Extension {
    private final List<Bean<?>> fsmBeans = new ArrayList<>();
    private final List<FsmReference> references = new ArrayList<>();
    private boolean durableBeanDiscovered;
    private volatile FsmRegistry registry;
    private volatile EngineSettings settings;

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
        if (apiPresent("org.eclipse.microprofile.metrics.MetricRegistry")) {
            event.addAnnotatedType(MetricRegistryLookup.class, GenDurableExtension.class.getName() + "#MetricRegistryLookup");
        }
        if (apiPresent("io.micrometer.core.instrument.MeterRegistry")) {
            event.addAnnotatedType(MeterRegistryLookup.class, GenDurableExtension.class.getName() + "#MeterRegistryLookup");
        }
        if (apiPresent("org.eclipse.microprofile.health.HealthCheck")) {
            event.addAnnotatedType(ReadinessCheck.class, GenDurableExtension.class.getName() + "#ReadinessCheck");
            event.addAnnotatedType(LivenessCheck.class, GenDurableExtension.class.getName() + "#LivenessCheck");
        }
    }

    private static boolean apiPresent(String className) {
        try {
            Class.forName(className, false, GenDurableExtension.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
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
        FsmRegistry r = new FsmRegistry();
        List<Bean<?>> beans;
        synchronized (fsmBeans) {
            beans = List.copyOf(fsmBeans);
        }
        for (Bean<?> bean : beans) {
            FsmReference reference = new FsmReference(beanManager, bean);
            try {
                r.register(FsmDefinition.of(bean.getBeanClass(), reference));
                references.add(reference);
            } catch (RuntimeException e) {
                // a duplicate (name, version) names both classes; a bad @DurableFsm names its class
                event.addDefinitionError(e);
            }
        }
        registry = r;
    }

    void readConfiguration(@Observes AfterDeploymentValidation event) {
        try {
            settings = EngineSettings.load();
        } catch (IllegalArgumentException e) {
            // ConfigException names the key; failing here means no migration and no thread ran
            event.addDeploymentProblem(e);
        }
    }

    /** @return the FSM beans, by name and version (empty before bean discovery ends) */
    public FsmRegistry registry() {
        FsmRegistry r = registry;
        return r == null ? new FsmRegistry() : r;
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

    /** Destroys the {@code @Dependent} FSM instances the engine used; called after the engine drained. */
    public void releaseFsmInstances() {
        references.forEach(FsmReference::release);
    }
}
