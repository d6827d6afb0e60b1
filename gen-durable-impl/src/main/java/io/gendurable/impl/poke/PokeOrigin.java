package io.gendurable.impl.poke;

import io.gendurable.impl.runtime.EngineMetrics;

import java.util.UUID;
import java.util.function.Consumer;

/**
 * The tag a node puts on the pokes it sends to the others ({@code <origin>|<queue>}), and the
 * receiving side: a poke that comes back to its sender is skipped (its local poke already
 * happened), any other goes to this node's schedulers. Shared by the PostgreSQL and Redis transports.
 */
public final class PokeOrigin {
    private final String id = UUID.randomUUID().toString().substring(0, 12);
    private final EngineMetrics metrics;
    private final Consumer<String> local;

    /**
     * @param metrics the engine's counters
     * @param local   this node's schedulers, told of each queue a poke from another node names
     */
    public PokeOrigin(EngineMetrics metrics, Consumer<String> local) {
        this.metrics = metrics;
        this.local = local;
    }

    /** @return this node's origin, the part before the {@code |} */
    public String id() {
        return id;
    }

    /** @param queue a queue @return the poke of it as this node sends it */
    public String tag(String queue) {
        return id + "|" + queue;
    }

    /** @param payload a poke as sent, {@code <origin>|<queue>}: pokes the queue here unless this node sent it */
    public void receive(String payload) {
        int bar = payload.indexOf('|');
        if (bar < 0 || payload.substring(0, bar).equals(id)) {
            return;  // our own: the local poke already happened
        }
        metrics.pokesReceived.increment();
        local.accept(payload.substring(bar + 1));
    }
}
