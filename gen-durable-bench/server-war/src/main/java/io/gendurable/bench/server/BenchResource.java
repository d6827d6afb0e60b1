package io.gendurable.bench.server;

import io.gendurable.DurableOperations;
import io.gendurable.GenDurable;
import io.gendurable.NewInstance;
import io.gendurable.impl.cdi.DurableBean;
import io.gendurable.impl.engine.EngineInternals;
import io.gendurable.impl.runtime.EngineMetrics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.servlet.ServletContext;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the harness (io.gendurable.bench.ServerBench) calls: inserts through {@link GenDurable#insertAll}
 * from a request thread, pauses and resumes queues through {@link DurableOperations}, and arms the
 * {@link Watch} that times a run. Every answer is one JSON object.
 */
@Path("bench")
@ApplicationScoped
@Produces(MediaType.APPLICATION_JSON)
public class BenchResource {
    @Inject
    GenDurable durable;

    @Inject
    DurableOperations operations;

    @Inject
    DurableBean engine;

    @Inject
    Watch watch;

    @Context
    ServletContext servlet;

    /** @return the server's pid, its name and version, and the engine's node: the engine has started */
    @GET
    @Path("ready")
    public String ready() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pid", ProcessHandle.current().pid());
        m.put("server", servlet == null ? "unknown" : servlet.getServerInfo());
        m.put("java", System.getProperty("java.version"));
        m.put("cpus", Runtime.getRuntime().availableProcessors());
        m.put("max_heap_mb", Runtime.getRuntime().maxMemory() / 1048576);
        m.put("engine_started", engine.engine() != null);
        return json(m);
    }

    /**
     * Inserts {@code count} instances of one kind with {@code insertAll}, {@code batch} a call.
     *
     * @param kind    {@code noop}, {@code blocking} or {@code fsm}
     * @param count   how many
     * @param batch   rows per insertAll call
     * @param k       steps per FSM ({@code fsm})
     * @param sleepMs how long a blocking step waits ({@code blocking})
     * @return the rows inserted and the milliseconds it took
     */
    @POST
    @Path("insert")
    public String insert(@QueryParam("kind") @DefaultValue("noop") String kind, @QueryParam("count") int count,
                         @QueryParam("batch") @DefaultValue("1000") int batch, @QueryParam("k") @DefaultValue("5") int k,
                         @QueryParam("sleepMs") @DefaultValue("20") int sleepMs) {
        if (count < 1 || batch < 1) {
            throw bad("count and batch must be 1 or more, got count=" + count + " batch=" + batch);
        }
        long t0 = System.nanoTime();
        for (int from = 0; from < count; from += batch) {
            List<NewInstance> rows = new ArrayList<>(batch);
            for (int i = from; i < Math.min(count, from + batch); i++) {
                rows.add(switch (kind) {
                    case "noop" -> NewInstance.of(BenchJobs.NoopJob.class, new BenchJobs.Args(i));
                    case "blocking" -> NewInstance.of(BenchJobs.BlockingJob.class, new BenchJobs.Sleep(i, sleepMs));
                    case "fsm" -> NewInstance.of(BenchJobs.HopFsm.class, new BenchJobs.Hop(k));
                    default -> throw bad("kind is noop, blocking or fsm, got " + kind);
                });
            }
            durable.insertAll(rows);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("inserted", count);
        m.put("ms", (System.nanoTime() - t0) / 1e6);
        return json(m);
    }

    /**
     * Parks this request thread in {@code await} as getting-started's resource does: inserts a
     * no-op job due in an hour and waits up to {@code seconds} for it to finish (it never does).
     *
     * @param seconds how long to wait
     * @return {@code {"parked_ms": …}}: how long the request waited
     */
    @POST
    @Path("park")
    public String park(@QueryParam("seconds") @DefaultValue("10") int seconds) {
        if (seconds < 1) {
            throw bad("seconds must be 1 or more, got " + seconds);
        }
        long id = durable.insert(BenchJobs.NoopJob.class, new BenchJobs.Args(-1), io.gendurable.InsertOptions.builder()
                .scheduleIn(java.time.Duration.ofHours(1)).build()).id();
        long t0 = System.nanoTime();
        parked.incrementAndGet();
        try {
            durable.await(id, java.time.Duration.ofSeconds(seconds));
        } finally {
            parked.decrementAndGet();
        }
        return json(Map.of("parked_ms", (System.nanoTime() - t0) / 1e6));
    }

    /** @return {@code {"parked": n}}: requests waiting in {@link #park} now */
    @GET
    @Path("parked")
    public String parked() {
        return json(Map.of("parked", parked.get()));
    }

    private final java.util.concurrent.atomic.AtomicInteger parked = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * @param queue the queue to pause on every node
     * @return {@code {"paused": queue}}
     */
    @POST
    @Path("pause")
    public String pause(@QueryParam("queue") @DefaultValue("default") String queue) {
        operations.pauseQueue(queue, "bench");
        seePausesNow();
        return json(Map.of("paused", queue));
    }

    /**
     * Arms the watch for {@code target} more committed outcomes, then resumes {@code resume} if given.
     *
     * @param target outcomes to count
     * @param resume a paused queue to resume once armed, or absent
     * @return {@code {"armed": target}}
     */
    @POST
    @Path("arm")
    public String arm(@QueryParam("target") long target, @QueryParam("resume") String resume) {
        if (target < 1) {
            throw bad("target must be 1 or more, got " + target);
        }
        watch.arm(engine.engine().metrics(), target);
        if (resume != null && !resume.isBlank()) {
            operations.resumeQueue(resume);
            seePausesNow();
        }
        return json(Map.of("armed", target));
    }

    /**
     * Makes this node read the paused queues now. The engine's own view is refreshed once per poll
     * interval (1 s), so a resume would otherwise start the burn-down up to 1 s late, inside its
     * timing, and a pause could let an insert start rows meanwhile.
     */
    private void seePausesNow() {
        EngineInternals.pauses(engine.engine()).refresh();
    }

    /** @return the armed run: outcomes counted, done, seconds, rates */
    @GET
    @Path("status")
    public String status() {
        return json(watch.status());
    }

    /** @return the engine's counters, since it started (the harness takes differences) */
    @GET
    @Path("metrics")
    public String metrics() {
        EngineMetrics e = engine.engine().metrics();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("picks", e.picks.sum());
        m.put("picks_in_flush", e.picksInFlush.sum());
        m.put("picked", e.picked.sum());
        m.put("started_at_insert", e.startedAtInsert.sum());
        m.put("empty_picks", e.emptyPicks.sum());
        m.put("flushes", e.flushes.sum());
        m.put("flushed_outcomes", e.flushedOutcomes.sum());
        m.put("flush_deferred", e.flushDeferred.sum());
        m.put("stale", e.stale.sum());
        m.put("flush_errors", e.flushErrors.sum());
        m.put("loop_errors", e.loopErrors.sum());
        m.put("step_nanos", e.stepNanos.sum());
        m.put("steps", e.steps.values().stream().mapToLong(java.util.concurrent.atomic.LongAdder::sum).sum());
        return json(m);
    }

    private static WebApplicationException bad(String message) {
        return new WebApplicationException(Response.status(400).type(MediaType.TEXT_PLAIN).entity(message).build());
    }

    /** A flat or nested map of numbers, booleans, strings and nulls as JSON. */
    static String json(Object v) {
        if (v == null) {
            return "null";
        } else if (v instanceof Map<?, ?> m) {
            StringBuilder b = new StringBuilder("{");
            m.forEach((k, x) -> b.append(b.length() > 1 ? "," : "").append(json(String.valueOf(k))).append(':').append(json(x)));
            return b.append('}').toString();
        } else if (v instanceof Double d) {
            return d.isNaN() || d.isInfinite() ? "null" : String.valueOf(d);
        } else if (v instanceof Number || v instanceof Boolean) {
            return String.valueOf(v);
        }
        return '"' + String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
