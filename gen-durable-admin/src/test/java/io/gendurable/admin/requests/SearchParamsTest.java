package io.gendurable.admin.requests;

import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.problems.AdminProblem;

import io.gendurable.InstanceQuery;
import io.gendurable.Status;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SearchParamsTest {

    private static Map<String, List<String>> params(String... pairs) {
        Map<String, List<String>> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.computeIfAbsent(pairs[i], k -> new java.util.ArrayList<>()).add(pairs[i + 1]);
        }
        return m;
    }

    private static InstanceQuery query(String... pairs) {
        return SearchParams.query(params(pairs), Set.of());
    }

    private static void rejected(String expectedInDetail, String... pairs) {
        assertThatThrownBy(() -> query(pairs))
                .isInstanceOfSatisfying(AdminProblem.class, p -> {
                    assertThat(p.status()).isEqualTo(400);
                    assertThat(p.type()).isEqualTo(Problem.TYPE_INVALID_INPUT);
                })
                .hasMessageContaining(expectedInDetail);
    }

    @Test
    void noParametersIsEveryInstanceNewestFirst() {
        InstanceQuery q = query();
        assertThat(q).isEqualTo(InstanceQuery.all());
    }

    @Test
    void everyFilterAndPagingParameterReachesTheQuery() {
        InstanceQuery q = query("fsm", "checkout", "fsmVersion", "2", "status", "failed,CANCELLED", "status", "runnable",
                "queue", "q1", "step", "charge", "correlationKeyPrefix", "order:", "concurrencyKey", "psp:acme",
                "parentId", "7", "insertedFrom", "2026-01-01T00:00:00Z", "insertedTo", "2026-01-02T01:00:00+01:00",
                "updatedFrom", "2026-02-01T00:00:00Z", "updatedTo", "2026-02-02T00:00:00Z", "errorContains", "psp timeout",
                "pageSize", "10", "order", "oldest_first", "cursor", "abc");
        assertThat(q.fsm()).isEqualTo("checkout");
        assertThat(q.fsmVersion()).isEqualTo(2);
        assertThat(q.statuses()).isEqualTo(EnumSet.of(Status.FAILED, Status.CANCELLED, Status.RUNNABLE));
        assertThat(q.queue()).isEqualTo("q1");
        assertThat(q.step()).isEqualTo("charge");
        assertThat(q.correlationKey()).isNull();
        assertThat(q.correlationKeyPrefix()).isEqualTo("order:");
        assertThat(q.concurrencyKey()).isEqualTo("psp:acme");
        assertThat(q.parentId()).isEqualTo(7L);
        assertThat(q.insertedFrom()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
        assertThat(q.insertedTo()).isEqualTo(Instant.parse("2026-01-02T00:00:00Z"));
        assertThat(q.updatedFrom()).isEqualTo(Instant.parse("2026-02-01T00:00:00Z"));
        assertThat(q.updatedTo()).isEqualTo(Instant.parse("2026-02-02T00:00:00Z"));
        assertThat(q.errorContains()).isEqualTo("psp timeout");
        assertThat(q.pageSize()).isEqualTo(10);
        assertThat(q.order()).isEqualTo(InstanceQuery.Order.OLDEST_FIRST);
        assertThat(q.cursor()).isEqualTo("abc");
    }

    @Test
    void exactCorrelationKey() {
        assertThat(query("correlationKey", "order:42").correlationKey()).isEqualTo("order:42");
    }

    @Test
    void anUnknownParameterIsRefusedByName() {
        rejected("unknown query parameter 'stauts'", "stauts", "FAILED");
    }

    @Test
    void aParameterTheCallerAcceptsIsLeftToIt() {
        assertThat(SearchParams.query(params("limit", "5"), Set.of("limit"))).isEqualTo(InstanceQuery.all());
    }

    @Test
    void malformedValuesNameTheirParameter() {
        rejected("status must be one or more of", "status", "FAILED,broken");
        rejected("parentId must be a whole number", "parentId", "x");
        rejected("parentId must be an instance id", "parentId", "0");
        rejected("insertedFrom must be an ISO-8601 instant", "insertedFrom", "yesterday");
        rejected("pageSize must be a whole number", "pageSize", "ten");
        rejected("order must be NEWEST_FIRST or OLDEST_FIRST", "order", "random");
        rejected("fsm must be given once", "fsm", "a", "fsm", "b");
        rejected("fsmVersion needs fsm", "fsmVersion", "1");
    }

    @Test
    void whatTheQueryItselfRefusesComesBackAs400() {
        rejected("pageSize must be between 1 and 1000", "pageSize", "0");
        rejected("correlationKey and correlationKeyPrefix are exclusive", "correlationKey", "a", "correlationKeyPrefix", "b");
        rejected("insertedFrom must be before insertedTo", "insertedFrom", "2026-01-02T00:00:00Z",
                "insertedTo", "2026-01-01T00:00:00Z");
    }
}
