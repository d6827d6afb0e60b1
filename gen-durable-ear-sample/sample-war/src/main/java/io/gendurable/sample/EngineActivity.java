package io.gendurable.sample;

import io.gendurable.events.RowsClaimed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's claims as its events tell them (docs/metrics.md, "Engine events"): rows claimed per
 * queue, and the thread the observer ran on (the engine's event dispatcher, never a claim or step
 * thread). {@code GET /api/engine-activity}.
 */
@ApplicationScoped
@Path("engine-activity")
public class EngineActivity {
    private final Map<String, AtomicLong> claimed = new ConcurrentHashMap<>();
    private volatile String observerThread = "";

    void claimed(@Observes RowsClaimed e) {
        claimed.computeIfAbsent(e.queue(), q -> new AtomicLong()).addAndGet(e.count());
        observerThread = Thread.currentThread().getName();
    }

    /** @return {@code {"claimed": {queue: rows}, "observerThread": name}} */
    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> activity() {
        Map<String, Long> rows = new java.util.TreeMap<>();
        claimed.forEach((q, n) -> rows.put(q, n.get()));
        return Map.of("claimed", rows, "observerThread", observerThread);
    }
}
