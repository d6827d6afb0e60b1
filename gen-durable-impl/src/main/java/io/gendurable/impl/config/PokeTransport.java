package io.gendurable.impl.config;

/** How inserts and engine-driven wakes announce runnable work ({@code gendurable.poke}). */
public enum PokeTransport {
    /** this JVM's schedulers only */
    LOCAL,
    /** every node, over PostgreSQL LISTEN/NOTIFY */
    POSTGRES,
    /** every node, over Redis Pub/Sub */
    REDIS
}
