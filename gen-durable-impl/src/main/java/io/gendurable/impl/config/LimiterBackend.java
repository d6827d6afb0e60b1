package io.gendurable.impl.config;

/** Where the configured gates and rate limits are admitted ({@code gendurable.limiter}). */
public enum LimiterBackend {
    /** sharded counters in {@code gen_durable_buckets} */
    POSTGRES,
    /** lease-scored sorted sets and token buckets in Redis */
    REDIS
}
