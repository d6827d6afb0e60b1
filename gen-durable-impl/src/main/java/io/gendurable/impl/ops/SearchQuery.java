package io.gendurable.impl.ops;

import io.gendurable.InstanceQuery;
import io.gendurable.InstanceQuery.Order;
import io.gendurable.Status;
import io.gendurable.impl.db.InstanceRow;
import jakarta.persistence.EntityManager;
import jakarta.persistence.TypedQuery;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A search as JPQL over the read-only entity {@link InstanceRow}, in two parts that share every
 * filter, the keyset bound and the order:
 *
 * <ul>
 *   <li>{@link Part#SETTLED}: the rows that are not {@code executing}, with the literal predicate
 *       {@code status <> 'executing'} that lets the planner use the partial
 *       {@code gen_durable_ops_*} indexes of {@code V3__operations_indexes.sql};</li>
 *   <li>{@link Part#EXECUTING}: the claims in flight, few, through {@code gen_durable_lease}.</li>
 * </ul>
 *
 * Statuses are written as literals (they come from {@link Status}, never from the caller's text);
 * every value of the caller's is a bound parameter. Each part is ordered by id and limited; the
 * caller merges them.
 */
final class SearchQuery {
    enum Part { SETTLED, EXECUTING }

    private final String jpql;
    private final Map<String, Object> params;

    private SearchQuery(String jpql, Map<String, Object> params) {
        this.jpql = jpql;
        this.params = params;
    }

    /** @return the parts the query's statuses reach, in a fixed order */
    static List<Part> parts(InstanceQuery q) {
        List<Part> parts = new ArrayList<>(2);
        Set<Status> s = q.statuses();
        if (s == null || !EnumSet.copyOf(s).equals(EnumSet.of(Status.EXECUTING))) {
            parts.add(Part.SETTLED);
        }
        if (s == null || s.contains(Status.EXECUTING)) {
            parts.add(Part.EXECUTING);
        }
        return parts;
    }

    /**
     * @param afterId the cursor's id, or null for the first page
     */
    static SearchQuery of(InstanceQuery q, Part part, Long afterId) {
        List<String> where = new ArrayList<>();
        Map<String, Object> p = new LinkedHashMap<>();
        if (part == Part.EXECUTING) {
            where.add("r.status = 'executing'");
        } else {
            where.add("r.status <> 'executing'");
            if (q.statuses() != null) {
                where.add("r.status IN (" + q.statuses().stream().filter(s -> s != Status.EXECUTING)
                        .map(s -> "'" + s.dbName() + "'").collect(Collectors.joining(", ")) + ")");
            }
        }
        eq(where, p, "r.fsm", "fsm", q.fsm());
        eq(where, p, "r.fsmVersion", "fsmVersion", q.fsmVersion());
        eq(where, p, "r.queue", "queue", q.queue());
        eq(where, p, "r.step", "step", q.step());
        eq(where, p, "r.correlationKey", "correlationKey", q.correlationKey());
        if (q.correlationKeyPrefix() != null) {
            // with the pattern known at planning (the search plans each execution: plan_cache_mode),
            // LIKE 'prefix%' is a range on gen_durable_ops_correlation (text_pattern_ops)
            where.add("r.correlationKey LIKE :correlationKeyPrefix ESCAPE '!'");
            p.put("correlationKeyPrefix", likeEscape(q.correlationKeyPrefix()) + "%");
        }
        eq(where, p, "r.concurrencyKey", "concurrencyKey", q.concurrencyKey());
        eq(where, p, "r.parentId", "parentId", q.parentId());
        range(where, p, "r.insertedAt", "inserted", q.insertedFrom(), q.insertedTo());
        range(where, p, "r.updatedAt", "updated", q.updatedFrom(), q.updatedTo());
        if (q.errorContains() != null) {
            where.add("r.lastError IS NOT NULL");
            where.add("LOWER(r.lastError) LIKE :errorContains ESCAPE '!'");
            p.put("errorContains", "%" + likeEscape(q.errorContains().toLowerCase(Locale.ROOT)) + "%");
        }
        boolean newest = q.order() == Order.NEWEST_FIRST;
        // (counted before the cursor's clause: every page of a search is planned alike)
        boolean prefixWithOthers = q.correlationKeyPrefix() != null && where.size() > 2;
        if (afterId != null) {
            where.add(newest ? "r.id < :afterId" : "r.id > :afterId");
            p.put("afterId", afterId);
        }
        // A key prefix with another filter beside it reads its range of gen_durable_ops_correlation
        // and sorts the matches by id: ordering by "id + 0" keeps the planner from walking the
        // primary key instead, which it may choose (its histogram overestimates a narrow prefix,
        // times the other filter's share) and which then reads the whole table for a page of a
        // few rows (SearchPlanTest, "fsm and correlation prefix"). A prefix alone keeps the
        // id order: a narrow one is planned on its index already, a wide one pages off the primary
        // key after a few rows. Known cost: a wide prefix with another filter reads all its range.
        String orderBy = prefixWithOthers ? "r.id + 0" : "r.id";
        String jpql = "SELECT r FROM InstanceRow r WHERE " + String.join(" AND ", where)
                + " ORDER BY " + orderBy + (newest ? " DESC" : " ASC");
        return new SearchQuery(jpql, p);
    }

    List<InstanceRow> rows(EntityManager em, int limit) {
        TypedQuery<InstanceRow> query = em.createQuery(jpql, InstanceRow.class);
        params.forEach(query::setParameter);
        return query.setMaxResults(limit).getResultList();
    }

    /** @return the JPQL (tests: the plans) */
    String jpql() {
        return jpql;
    }

    /** @return the parameters by name (tests: the plans) */
    Map<String, Object> params() {
        return params;
    }

    private static void eq(List<String> where, Map<String, Object> p, String attribute, String name, Object value) {
        if (value != null) {
            where.add(attribute + " = :" + name);
            p.put(name, value);
        }
    }

    private static void range(List<String> where, Map<String, Object> p, String attribute, String name, Instant from, Instant to) {
        if (from != null) {
            where.add(attribute + " >= :" + name + "From");
            p.put(name + "From", OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
        }
        if (to != null) {
            where.add(attribute + " < :" + name + "To");
            p.put(name + "To", OffsetDateTime.ofInstant(to, ZoneOffset.UTC));
        }
    }

    /** Escapes LIKE's wildcards and the escape character the statements name ({@code ESCAPE '!'}). */
    static String likeEscape(String text) {
        StringBuilder b = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '%' || c == '_' || c == '!') {
                b.append('!');
            }
            b.append(c);
        }
        return b.toString();
    }
}
