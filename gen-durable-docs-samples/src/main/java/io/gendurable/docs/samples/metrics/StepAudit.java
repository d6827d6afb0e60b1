package io.gendurable.docs.samples.metrics;

import io.gendurable.events.StepCompleted;
import io.gendurable.events.StepFailed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;
import jakarta.inject.Inject;
import java.util.logging.Logger;

// tag::observer[]
@ApplicationScoped
public class StepAudit {
    private static final Logger log = Logger.getLogger(StepAudit.class.getName());

    @Inject Alerts alerts;                              // your own bean

    void completed(@ObservesAsync StepCompleted e) {
        log.fine(() -> e.fsm() + "#" + e.id() + " " + e.step() + " → " + e.outcome() + " in " + e.duration());
    }

    void failed(@ObservesAsync StepFailed e) {
        alerts.raise(e.fsm(), e.id(), e.step(), e.outcome(), e.error());
    }
}
// end::observer[]
