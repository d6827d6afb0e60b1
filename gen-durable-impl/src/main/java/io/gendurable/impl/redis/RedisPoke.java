package io.gendurable.impl.redis;

import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.poke.PokeOrigin;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.Loops;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Cross-node pokes over Redis Pub/Sub ({@code gendurable.poke=redis}). Sending: a fleet-wide
 * dedup per queue, one script that sets {@code <prefix>poke:<queue>} with {@code NX PX window}
 * and publishes only when it could: a burst or a stream of inserts on any number of nodes becomes
 * at most one broadcast per queue per window ({@code gendurable.poke.window}). A node whose poke
 * found the window taken tries once more when it ends (the trailing edge: an insert that lands
 * just after a broadcast waits at most one window, not a poll), and those retries compete for the
 * next window in the same way. Receiving: one Pub/Sub connection; payloads are tagged with the
 * sender, so a node never pokes itself twice (its own schedulers were poked locally). After a
 * reconnect it pokes every local queue once (it may have missed something). Best-effort: a lost
 * poke costs one poll interval, never correctness; the schedulers drop pokes while busy.
 */
public final class RedisPoke implements Poke {
    private static final Logger LOG = System.getLogger("io.gendurable.poke");

    // KEYS: the queue's dedup key, the channel. ARGV: window ms (0: no dedup), payload.
    private static final RedisStore.Script SEND = new RedisStore.Script("""
            local w = tonumber(ARGV[1])
            if w > 0 and not redis.call('SET', KEYS[1], '1', 'NX', 'PX', w) then return -1 end
            return redis.call('PUBLISH', KEYS[2], ARGV[2])
            """);

    private final EngineContext ctx;
    private final RedisStore store;
    private final String channel;
    private final PokeOrigin origin;
    private final Runnable pokeAllLocal;
    private final ScheduledExecutorService timer;
    private final long windowMillis;
    private final Set<String> trailing = ConcurrentHashMap.newKeySet();
    private volatile StatefulRedisPubSubConnection<String, String> subscription;
    private volatile boolean running;
    private volatile boolean connectedOnce;
    private volatile ScheduledFuture<?> probe;

    /**
     * @param ctx          the engine's context (its poke window, timer, counters)
     * @param store        the engine's Redis
     * @param local        this node's schedulers, told of each queue a message names
     * @param pokeAllLocal pokes every local scheduler (after a reconnect, when messages may have been missed)
     */
    public RedisPoke(EngineContext ctx, RedisStore store, Consumer<String> local, Runnable pokeAllLocal) {
        this.ctx = ctx;
        this.store = store;
        this.channel = store.prefix() + "poke";
        this.origin = new PokeOrigin(ctx.metrics(), local);
        this.pokeAllLocal = pokeAllLocal;
        this.timer = ctx.requireTimer();
        this.windowMillis = ctx.config().poke().window().toMillis();
    }

    @Override
    public void poke(String queue) {
        // Never on the caller's thread (it may be inside its transaction).
        timer.execute(() -> Loops.guarded(LOG, "redis poke send", ctx.metrics(), () -> send(queue)));
    }

    private void send(String queue) {
        Long receivers = store.eval(SEND, ScriptOutputType.INTEGER, List.of(store.prefix() + "poke:" + queue, channel),
                List.of(Long.toString(windowMillis), origin.tag(queue)));
        if (receivers >= 0) {
            ctx.metrics().pokesSent.increment();
        } else if (trailing.add(queue)) {
            timer.schedule(() -> {
                trailing.remove(queue);
                Loops.guarded(LOG, "redis poke send", ctx.metrics(), () -> send(queue));
            }, windowMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** Subscribes (retrying in the background while Redis does not answer), and probes the subscription. */
    public void start() {
        running = true;
        subscribe(100);
        long every = ctx.config().poke().probeInterval().toMillis();
        probe = timer.scheduleWithFixedDelay(() -> Loops.guarded(LOG, "redis poke probe", ctx.metrics(), this::probeOnce),
                every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * A PING on the Pub/Sub connection, under the client's command timeout. An idle subscription
     * never writes, and the client reconnects only when its socket closes: a connection cut
     * silently (a firewall or NAT dropping it, a failover) would stay subscribed to nothing. A
     * PING that fails closes it and subscribes anew on a fresh connection, then pokes every local
     * queue (messages may have been missed).
     */
    private void probeOnce() {
        StatefulRedisPubSubConnection<String, String> c = subscription;
        if (c == null || !running) {
            return;
        }
        try {
            c.sync().ping();
        } catch (RuntimeException e) {
            if (subscription != c || !running) {
                return;
            }
            subscription = null;
            LOG.log(Level.WARNING, "gen-durable redis poke subscription did not answer a PING; subscribing again: " + e);
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // dead anyway
            }
            ctx.metrics().pokeReconnects.increment();
            subscribe(100);
            if (subscription != null) {
                pokeAllLocal.run();
            }
        }
    }

    private void subscribe(long backoffMillis) {
        if (!running) {
            return;
        }
        try {
            StatefulRedisPubSubConnection<String, String> c = store.pubSub();
            c.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String ch, String payload) {
                    origin.receive(payload);
                }
            });
            c.addListener(new RedisConnectionStateListener() {
                @Override
                public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
                    if (connectedOnce && running) {
                        ctx.metrics().pokeReconnects.increment();
                        LOG.log(Level.INFO, "gen-durable redis poke reconnected on channel " + channel);
                        timer.execute(pokeAllLocal);  // we may have missed pokes while away
                    }
                }
            });
            c.sync().subscribe(channel);
            connectedOnce = true;
            subscription = c;
            if (!running) {
                c.close();
            }
        } catch (RuntimeException e) {
            long next = Math.min(backoffMillis * 2, 5_000);
            LOG.log(Level.WARNING, "gen-durable redis poke cannot subscribe; retrying in " + next + " ms: " + e);
            timer.schedule(() -> subscribe(next), next, TimeUnit.MILLISECONDS);
        }
    }

    /** Unsubscribes and closes the Pub/Sub connection. */
    public void stop() {
        running = false;
        ScheduledFuture<?> p = probe;
        if (p != null) {
            p.cancel(false);
        }
        StatefulRedisPubSubConnection<String, String> c = subscription;
        subscription = null;
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // closing anyway
            }
        }
    }
}
