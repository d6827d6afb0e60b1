package io.gendurable.impl.cdi;

import io.gendurable.Fsm;
import jakarta.enterprise.context.spi.CreationalContext;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.function.Supplier;

/**
 * Supplies an FSM bean to the engine as a contextual reference from the {@link BeanManager},
 * obtained on first use (after deployment validation, when references may be asked for) and
 * then reused: a client proxy for normal-scoped beans, one instance for the application's
 * lifetime for {@code @Dependent} ones, released by {@link #release()} at shutdown.
 */
final class FsmReference implements Supplier<Fsm<?>> {
    private final BeanManager beanManager;
    private final Bean<?> bean;
    private volatile Fsm<?> reference;
    private CreationalContext<?> creationalContext;

    /**
     * @param beanManager the container's bean manager
     * @param bean        the FSM bean
     */
    FsmReference(BeanManager beanManager, Bean<?> bean) {
        this.beanManager = beanManager;
        this.bean = bean;
    }

    /** @return the FSM bean's contextual reference */
    @Override
    public Fsm<?> get() {
        Fsm<?> r = reference;
        if (r == null) {
            synchronized (this) {
                r = reference;
                if (r == null) {
                    creationalContext = beanManager.createCreationalContext(bean);
                    r = (Fsm<?>) beanManager.getReference(bean, beanType(bean), creationalContext);
                    reference = r;
                }
            }
        }
        return r;
    }

    /** Destroys a {@code @Dependent} FSM instance this reference created; a later {@link #get()} makes a new one. */
    synchronized void release() {
        if (creationalContext != null) {
            creationalContext.release();
            creationalContext = null;
        }
        reference = null;
    }

    /** @return the bean's class when it is one of its bean types ({@code @Typed} may hide it), else an Fsm type */
    private static Type beanType(Bean<?> bean) {
        if (bean.getTypes().contains(bean.getBeanClass())) {
            return bean.getBeanClass();
        }
        for (Type t : bean.getTypes()) {
            Class<?> raw = t instanceof Class<?> c ? c
                    : t instanceof ParameterizedType p ? (Class<?>) p.getRawType() : Object.class;
            if (Fsm.class.isAssignableFrom(raw)) {
                return t;
            }
        }
        return Object.class;
    }
}
