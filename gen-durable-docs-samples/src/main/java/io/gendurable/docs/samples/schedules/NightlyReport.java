package io.gendurable.docs.samples.schedules;

import io.gendurable.DurableFsm;
import io.gendurable.DurableSchedule;
import io.gendurable.Job;
import io.gendurable.StepContext;
import jakarta.enterprise.context.ApplicationScoped;

/** A job inserted every night at 02:30 Berlin time. */
// tag::declare[]
@ApplicationScoped
@DurableFsm(name = "nightly-report", queue = "reports")
@DurableSchedule(name = "nightly-report", cron = "30 2 * * *", zone = "Europe/Berlin",
                 state = "{\"format\": \"pdf\"}")
public class NightlyReport implements Job<NightlyReport.Request> {
    /** @param format the report's format */
    public record Request(String format) {
    }

    @Override
    public Object perform(Request r, StepContext ctx) {
        // ctx.correlationKey() is "schedule:nightly-report:2026-05-01T00:30:00Z"
        return "rendered " + r.format() + " for " + ctx.correlationKey().orElseThrow();
    }
}
// end::declare[]
