package io.gendurable.impl.sql;

import jakarta.persistence.EntityManager;

import java.util.List;
import java.util.Optional;

/**
 * Reads of single instances through the read-only entity. By id: the primary key. By
 * correlation key: {@code gen_durable_correlation} (the guard is non-null only while the row
 * holds its key).
 */
public final class FindSql {

    public Optional<InstanceRow> byId(EntityManager em, long id) {
        return Optional.ofNullable(em.find(InstanceRow.class, id));
    }

    public Optional<InstanceRow> byCorrelationKey(EntityManager em, String key) {
        List<InstanceRow> rows = em.createQuery(
                        "SELECT r FROM InstanceRow r WHERE r.correlationGuard = :key", InstanceRow.class)
                .setParameter("key", key)
                .getResultList();
        return rows.stream().findFirst();
    }
}
