package io.gendurable.impl.engine;

import io.gendurable.impl.db.InstanceRow;
import jakarta.persistence.EntityManager;

import java.util.List;
import java.util.Optional;

/**
 * Reads of instances through the read-only entity. By id: the primary key. By
 * correlation key: {@code gen_durable_correlation} (the guard is non-null only while the row
 * holds its key). By FSM name: a scan, for test assertions only (no index serves it).
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

    /** @return every instance of the FSM named {@code fsm}, in id order (tests: a scan) */
    public List<InstanceRow> byFsm(EntityManager em, String fsm) {
        return em.createQuery("SELECT r FROM InstanceRow r WHERE r.fsm = :fsm ORDER BY r.id", InstanceRow.class)
                .setParameter("fsm", fsm)
                .getResultList();
    }
}
