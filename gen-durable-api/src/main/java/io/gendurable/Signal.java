package io.gendurable;

import java.time.Instant;

/**
 * A durable signal in an instance's inbox.
 *
 * @param id         the signal's id (consumption is by id)
 * @param name       its name
 * @param payload    its payload
 * @param dedupKey   its dedup key, or null
 * @param insertedAt when it was delivered
 */
public record Signal(long id, String name, DurableValue payload, String dedupKey, Instant insertedAt) {
}
