package io.gendurable.impl.redis;

import io.gendurable.impl.admission.Limiter;
import io.gendurable.impl.config.ConfigException;
import io.gendurable.impl.config.ConfigKeys;
import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.config.LimiterBackend;
import io.gendurable.impl.config.PokeTransport;
import io.gendurable.impl.poke.Poke;
import io.gendurable.impl.runtime.EngineContext;

import java.util.function.Consumer;

/**
 * The Redis backends of one engine: the limiter ({@code gendurable.limiter=redis}) and the poke
 * ({@code gendurable.poke=redis}) over one {@link RedisStore}. The engine reaches the Redis
 * classes only through here, and only when its configuration names Redis: the Redis client
 * ({@code io.lettuce:lettuce-core}) is an optional dependency that an application without Redis
 * does not carry.
 */
public final class RedisBackends {
    /** The Redis client's artifact, named in the error when it is missing. */
    public static final String CLIENT_ARTIFACT = "io.lettuce:lettuce-core";
    private static final String CLIENT_CLASS = "io.lettuce.core.RedisClient";

    private final RedisStore store;
    private final RedisLimiter limiter;
    private final RedisPoke poke;

    private RedisBackends(RedisStore store, RedisLimiter limiter, RedisPoke poke) {
        this.store = store;
        this.limiter = limiter;
        this.poke = poke;
    }

    /**
     * @param ctx          the engine's context (its configuration names Redis)
     * @param local        this node's schedulers, for the poke's receiver
     * @param pokeAllLocal pokes every local scheduler
     * @return the backends the configuration names
     * @throws ConfigException naming the key and the missing artifact when the Redis client is absent
     */
    public static RedisBackends open(EngineContext ctx, Consumer<String> local, Runnable pokeAllLocal) {
        EngineConfig config = ctx.config();
        requireClient(config, RedisBackends.class.getClassLoader(), CLIENT_CLASS);
        RedisStore store = new RedisStore(config);
        return new RedisBackends(store,
                config.limiter() == LimiterBackend.REDIS ? new RedisLimiter(ctx, store) : null,
                config.poke().transport() == PokeTransport.REDIS
                        ? new RedisPoke(ctx, store, local, pokeAllLocal) : null);
    }

    /**
     * Fails with a deployment error when the Redis client's class is not visible.
     *
     * @param config      the configuration naming Redis
     * @param loader      where to look
     * @param clientClass the client's entry class
     */
    static void requireClient(EngineConfig config, ClassLoader loader, String clientClass) {
        try {
            Class.forName(clientClass, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            boolean limiter = config.limiter() == LimiterBackend.REDIS;
            String key = (limiter ? ConfigKeys.LIMITER : ConfigKeys.POKE).key();
            throw new ConfigException(key, "redis needs the Redis client " + CLIENT_ARTIFACT
                    + " (7.7.0.RELEASE), which the application does not see (" + clientClass + "): add it to the "
                    + "application (in an EAR, to lib/ with its dependencies), or set " + key + "="
                    + (limiter ? "postgres" : "postgres or local"));
        }
    }

    /** @return the limiter, or null when the limiter is PostgreSQL's */
    public Limiter limiter() {
        return limiter;
    }

    /** @return the poke transport, or null when pokes do not go through Redis */
    public Poke poke() {
        return poke;
    }

    /** Starts receiving pokes. */
    public void start() {
        if (poke != null) {
            poke.start();
        }
    }

    /** Stops receiving pokes and closes the client. */
    public void stop() {
        if (poke != null) {
            poke.stop();
        }
        store.close();
    }
}
