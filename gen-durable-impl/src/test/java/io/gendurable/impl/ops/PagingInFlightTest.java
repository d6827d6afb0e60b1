package io.gendurable.impl.ops;

import io.gendurable.InstancePage;
import io.gendurable.InstanceQuery;
import io.gendurable.InstanceQuery.Order;
import io.gendurable.InstanceSnapshot;
import io.gendurable.impl.engine.Engine;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exact guarantee of oldest-first paging (docs/operations.md, "Operations API"): ids are
 * handed out at insert, not at commit, so a row whose insert took its id before a page past it
 * was read and committed after that page is below the cursor and no later page lists it (an
 * insert in a long transaction: a caller's JTA transaction, typically). A listing bounded by
 * {@code inserted(…, T)} and paged once every transaction open at T has ended lists every row
 * inserted up to T: that is the complete listing operations.md tells operators to use.
 */
@EngineTest
class PagingInFlightTest {
    @Test
    void a_row_committed_after_a_page_past_its_id_is_missed_and_a_bounded_listing_after_it_is_complete(EngineHarness h)
            throws Exception {
        Engine e = h.start("paging", c -> c.queues(Map.of()));
        String insert = "INSERT INTO gen_durable (fsm, step, state, queue) VALUES ('page', 'a', '{}', 'nowhere') RETURNING id";
        long first = h.queryLong(insert);
        long late;
        List<Long> listed = new ArrayList<>();
        InstanceQuery oldest = InstanceQuery.builder().fsm("page").order(Order.OLDEST_FIRST).pageSize(2).build();
        try (Connection open = h.dataSource().getConnection()) {
            open.setAutoCommit(false);
            try (Statement s = open.createStatement()) {
                s.execute("SET search_path TO " + h.schema());
                try (ResultSet rs = s.executeQuery(insert)) {
                    rs.next();
                    late = rs.getLong(1);  // its id is taken; the row commits later
                }
            }
            long after = h.queryLong(insert);
            assertThat(after).isGreaterThan(late);
            InstancePage page = e.operations().search(oldest);
            page.items().forEach(s -> listed.add(s.id()));
            assertThat(listed).containsExactly(first, after);
            open.commit();
            for (String cursor = page.nextCursor(); cursor != null; cursor = page.nextCursor()) {
                page = e.operations().search(oldest.after(cursor));
                page.items().forEach(s -> listed.add(s.id()));
            }
        }
        assertThat(listed).as("the row committed after the page past its id is not listed").doesNotContain(late);

        // the complete listing: bounded by a moment T, paged once every transaction open at T ended
        Instant t = Instant.now();
        List<Long> complete = new ArrayList<>();
        InstanceQuery bounded = InstanceQuery.builder().fsm("page").order(Order.OLDEST_FIRST).pageSize(2)
                .inserted(null, t).build();
        InstancePage page = e.operations().search(bounded);
        page.items().stream().map(InstanceSnapshot::id).forEach(complete::add);
        for (String cursor = page.nextCursor(); cursor != null; cursor = page.nextCursor()) {
            page = e.operations().search(bounded.after(cursor));
            page.items().stream().map(InstanceSnapshot::id).forEach(complete::add);
        }
        assertThat(complete).containsExactly(first, late, h.queryLong("SELECT max(id) FROM gen_durable WHERE fsm = 'page'"));
    }
}
