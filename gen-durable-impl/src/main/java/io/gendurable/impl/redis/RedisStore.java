package io.gendurable.impl.redis;

import io.gendurable.impl.config.EngineConfig;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/**
 * This engine's Redis: one Lettuce client and one shared, thread-safe command connection, opened
 * on first use and reopened after a failure to connect (Lettuce itself reconnects a connection
 * that drops). Commands issued while disconnected fail at once instead of queueing: an admission
 * that runs late would be worse than one that fails (the claimed rows go back, the next claim
 * retries). Keys live under {@code gendurable:<schema>:}. Single-node Redis (or a primary): one
 * admission script touches every key of its batch, which Redis Cluster would spread over slots.
 */
public final class RedisStore implements AutoCloseable {
    private final RedisClient client;
    private final String prefix;
    private final Duration timeout;
    private volatile StatefulRedisConnection<String, String> connection;

    /**
     * @param config the engine's configuration ({@code gendurable.redis.*}, the schema for the key prefix)
     */
    public RedisStore(EngineConfig config) {
        this.timeout = config.redis().timeout();
        RedisURI uri = RedisURI.create(config.redis().url());
        uri.setTimeout(timeout);
        this.client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .build());
        this.prefix = "gendurable:" + config.schema().name() + ":";
    }

    /** @return the prefix of every key of this engine's schema */
    public String prefix() {
        return prefix;
    }

    /** @return the command connection, opened if need be (throws when Redis does not answer) */
    public StatefulRedisConnection<String, String> connection() {
        StatefulRedisConnection<String, String> c = connection;
        if (c != null) {
            return c;
        }
        synchronized (this) {
            if (connection == null) {
                connection = client.connect();
                connection.setTimeout(timeout);
            }
            return connection;
        }
    }

    /** @return a new Pub/Sub connection (the caller closes it) */
    public StatefulRedisPubSubConnection<String, String> pubSub() {
        return client.connectPubSub();
    }

    /**
     * Runs a script by its digest, loading it when the server does not know it (a restarted
     * server forgot its scripts).
     */
    public <T> T eval(Script script, ScriptOutputType type, List<String> keys, List<String> args) {
        String[] k = keys.toArray(String[]::new);
        String[] a = args.toArray(String[]::new);
        try {
            return connection().sync().evalsha(script.sha, type, k, a);
        } catch (RedisNoScriptException e) {
            return connection().sync().eval(script.text, type, k, a);
        }
    }

    @Override
    public void close() {
        StatefulRedisConnection<String, String> c = connection;
        if (c != null) {
            c.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }

    /** A Lua script and its SHA-1 digest. */
    public static final class Script {
        final String text;
        final String sha;

        /** @param text the script */
        public Script(String text) {
            this.text = text;
            try {
                this.sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                        .digest(text.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
