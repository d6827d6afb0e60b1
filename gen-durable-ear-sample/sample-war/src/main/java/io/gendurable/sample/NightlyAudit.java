package io.gendurable.sample;

import io.gendurable.DurableFsm;
import io.gendurable.DurableOperations;
import io.gendurable.DurableSchedule;
import io.gendurable.InstanceQuery;
import io.gendurable.Job;
import io.gendurable.Status;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.util.Map;

/**
 * A recurring job: every night at 03:00 Berlin time one instance (exactly one, whatever the
 * number of nodes) counts the orders that failed. The console's FSM view lists the schedule,
 * with pause, resume and "trigger now" for the admin role.
 */
@DurableFsm(name = "nightly-audit", queue = "shipments")
@DurableSchedule(name = "nightly-audit", cron = "0 3 * * *", zone = "Europe/Berlin")
@ApplicationScoped
public class NightlyAudit implements Job<NightlyAudit.Audit> {
    /** The audit's input: nothing (the schedule's default state {@code {}}). */
    public record Audit() {
    }

    @Inject
    DurableOperations operations;

    @Override
    public Object perform(Audit audit, StepContext ctx) {
        long failed = operations.search(InstanceQuery.builder().fsm("order").status(Status.FAILED).pageSize(1000).build())
                .items().size();
        return Map.of("failedOrders", failed, "firedAs", ctx.correlationKey().orElse(""));
    }
}
