package io.gendurable.impl.cdi;

import io.gendurable.events.EngineEvent;
import io.gendurable.events.EngineEventListener;
import io.gendurable.impl.runtime.EventKind;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.ObserverMethod;
import java.util.Arrays;
import java.util.List;

/**
 * The engine's events for the application's CDI observers: a listener on the engine's event
 * dispatcher thread, so neither kind of observer runs on an engine thread. Which types have
 * observers, and of which kind, is resolved once at start ({@link BeanManager#resolveObserverMethods});
 * a type without any is never built. For each event it fires the asynchronous observers first
 * ({@code fireAsync}: the container's executor; the dispatcher does not wait), then the synchronous
 * ones ({@code fire}, on the dispatcher thread: a slow one delays the events behind it, and the
 * dispatcher's bounded queue drops and counts what does not fit).
 *
 * <p>Step and operator events keep their own CDI delivery ({@link io.gendurable.impl.cdi.metrics.ContainerEvents}): they are not
 * fired here.
 */
final class CdiEventSink implements EngineEventListener {
    private static final long OWN_DELIVERY = EventKind.STEP_COMPLETED.bit | EventKind.STEP_FAILED.bit
            | EventKind.OPERATOR_ACTION.bit;

    private final Event<Object> cdi;
    private final long sync;
    private final long async;

    private CdiEventSink(Event<Object> cdi, long sync, long async) {
        this.cdi = cdi;
        this.sync = sync;
        this.async = async;
    }

    /**
     * @param beans the container, after deployment validation
     * @param cdi   where the events are fired
     * @return the sink of the types the application observes
     */
    static CdiEventSink resolve(BeanManager beans, Event<Object> cdi) {
        long sync = 0;
        long async = 0;
        for (EventKind k : EventKind.values()) {
            if ((k.bit & OWN_DELIVERY) != 0) {
                continue;
            }
            for (ObserverMethod<?> o : beans.resolveObserverMethods(k.sample())) {
                if (o.isAsync()) {
                    async |= k.bit;
                } else {
                    sync |= k.bit;
                }
            }
        }
        return new CdiEventSink(cdi, sync, async);
    }

    /** @return the types some observer wants (empty: register nothing) */
    List<Class<? extends EngineEvent>> types() {
        return Arrays.stream(EventKind.values()).filter(k -> ((sync | async) & k.bit) != 0).<Class<? extends EngineEvent>>map(k -> k.type)
                .toList();
    }

    @Override
    public void onEvent(EngineEvent event) {
        long bit = EventKind.of(event).bit;
        if ((async & bit) != 0) {
            cdi.fireAsync(event);
        }
        if ((sync & bit) != 0) {
            cdi.fire(event);
        }
    }
}
