package io.gendurable.docs.samples.schedules;

import io.gendurable.DurableFsm;
import io.gendurable.DurableOperations;
import io.gendurable.Job;
import io.gendurable.ScheduleDefinition;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.ZoneId;

/** Schedules defined at run time, one per tenant. */
@ApplicationScoped
public class TenantCleanups {
    /** The job each tenant's schedule inserts. */
    @DurableFsm(name = "tenant-cleanup")
    public static class CleanupJob implements Job<Cleanup> {
        @Override
        public Object perform(Cleanup c, StepContext ctx) {
            return "cleaned " + c.tenant();
        }
    }

    /** @param tenant whose data is cleaned */
    public record Cleanup(String tenant) {
    }

    @Inject
    DurableOperations ops;

    /** @param tenant a new tenant */
    public void onboard(String tenant) {
        // tag::define[]
        ops.defineSchedule(ScheduleDefinition.of("cleanup-" + tenant, CleanupJob.class, "0 3 * * *", new Cleanup(tenant))
                .inZone(ZoneId.of("Europe/Berlin")));
        // end::define[]
    }

    /** @param tenant a tenant that left */
    public void offboard(String tenant) {
        // tag::remove[]
        ops.removeSchedule("cleanup-" + tenant);
        // end::remove[]
    }
}
