package io.gendurable.docs.samples.metrics;

import io.gendurable.events.GateThrottled;
import io.gendurable.events.OutcomeStale;
import io.gendurable.events.RateLimitUnknown;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import java.util.logging.Logger;

// tag::observer[]
@ApplicationScoped
public class LimitAlerts {
    private static final Logger log = Logger.getLogger(LimitAlerts.class.getName());

    void throttled(@ObservesAsync GateThrottled e) {   // the container's async executor
        log.info(() -> "gate " + e.key() + " on " + e.queue() + ": " + e.admitted() + " of " + e.wanted() + " admitted");
    }

    void unknown(@Observes RateLimitUnknown e) {        // the engine's event thread, never a claim's
        log.warning(() -> e.fsm() + "." + e.step() + " names rate limit " + e.name() + ", not configured here");
    }

    void stale(@Observes OutcomeStale e) {
        log.warning(() -> e.fsm() + "#" + e.id() + " " + e.step() + ": outcome " + e.kind() + " came too late");
    }
}
// end::observer[]
