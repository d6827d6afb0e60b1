package io.gendurable.impl.db;

/**
 * The claim order's SQL, shared by the claim and by the walk that blocks rows behind busy keys
 * ({@code io.gendurable.impl.keys.KeySql}): both read a queue's rows as the claim takes them.
 */
public final class ClaimOrder {
    private ClaimOrder() {
    }

    /**
     * A recursive CTE named {@code name} that lists a queue's runnable priorities (of the rows in
     * {@code gen_durable_pick}), most urgent first, one index probe each: a loose index scan. Each
     * priority is then read from its due rows on, so rows not yet due at a more urgent priority (a
     * far-future backlog) are never walked. Binds the queue twice, with any parameters of
     * {@code firstCondition} between the two.
     *
     * @param name           the CTE's name (its column is {@code priority}; the last row is NULL)
     * @param table          the qualified instance table
     * @param firstCondition a further condition on the first probe (e.g. the queue is not paused), or ""
     */
    public static String runnablePriorities(String name, String table, String firstCondition) {
        return """
                %1$s AS (
                    (SELECT priority FROM %2$s
                     WHERE status = 'runnable' AND NOT key_blocked AND queue = ?%3$s
                     ORDER BY priority LIMIT 1)
                    UNION ALL
                    SELECT (SELECT n.priority FROM %2$s n
                            WHERE n.status = 'runnable' AND NOT n.key_blocked AND n.queue = ? AND n.priority > p.priority
                            ORDER BY n.priority LIMIT 1)
                    FROM %1$s p WHERE p.priority IS NOT NULL
                )""".formatted(name, table, firstCondition);
    }
}
