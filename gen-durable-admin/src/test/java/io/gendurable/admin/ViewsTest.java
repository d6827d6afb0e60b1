package io.gendurable.admin;

import io.gendurable.DurableValue;
import io.gendurable.InstanceDetails;
import io.gendurable.InstancePage;
import io.gendurable.FsmRegistration;
import io.gendurable.InstanceSnapshot;
import io.gendurable.NodeStatus;
import io.gendurable.OperationsSummary;
import io.gendurable.PausedQueue;
import io.gendurable.QueueAlert;
import io.gendurable.QueueSummary;
import io.gendurable.Signal;
import io.gendurable.Status;
import io.gendurable.StepTiming;
import io.gendurable.ThroughputPoint;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The JSON the views make through a real JSON-B (Yasson, as in Liberty's jsonb-3.0). */
class ViewsTest {
    private static final Jsonb JSONB = JsonbBuilder.create();
    private static final Instant T = Instant.parse("2026-05-01T12:00:00Z");

    @AfterAll
    static void close() throws Exception {
        JSONB.close();
    }

    private static DurableValue value(String json) {
        return new DurableValue() {
            @Override
            public String json() {
                return json;
            }

            @Override
            public <T> T as(Class<T> type) {
                throw new UnsupportedOperationException();
            }

            @Override
            public boolean isNull() {
                return json == null || "null".equals(json);
            }
        };
    }

    private static InstanceSnapshot snapshot(long id, Status status, String state, String result) {
        return new InstanceSnapshot(id, "checkout", 1, "charge", status, 2, "default", 5, T, "order:1", null,
                List.of("payment_settled"), T.plusSeconds(60), null, 0, value(state), value(result), null, T, T.plusSeconds(1));
    }

    private static JsonObject json(Object view) {
        return Json.createReader(new StringReader(JSONB.toJson(view))).readObject();
    }

    @Test
    void anInstanceCarriesItsStateAsJsonAndEveryMember() {
        JsonObject j = json(Views.Instance.of(snapshot(7, Status.AWAITING_SIGNAL, "{\"orderId\":\"1\",\"n\":[1,2.5]}", "null")));
        assertThat(j.getJsonNumber("id").longValue()).isEqualTo(7);
        assertThat(j.getString("status")).isEqualTo("AWAITING_SIGNAL");
        assertThat(j.getJsonObject("state").toString()).isEqualTo("{\"orderId\":\"1\",\"n\":[1,2.5]}");
        assertThat(j.get("result")).isEqualTo(JsonValue.NULL);
        assertThat(j.get("lastError")).isEqualTo(JsonValue.NULL);
        assertThat(j.get("concurrencyKey")).isEqualTo(JsonValue.NULL);
        assertThat(j.getString("eligibleAt")).isEqualTo("2026-05-01T12:00:00Z");
        assertThat(j.getJsonArray("awaits").getString(0)).isEqualTo("payment_settled");
        assertThat(j.keySet()).contains("parentId", "childrenPending", "insertedAt", "updatedAt", "priority", "attempt");
    }

    @Test
    void aPageCarriesItsCursor() {
        JsonObject j = json(Views.Page.of(new InstancePage(List.of(snapshot(3, Status.FAILED, "1", "null")), "c-3")));
        assertThat(j.getString("nextCursor")).isEqualTo("c-3");
        assertThat(j.getJsonArray("items").getJsonObject(0).getInt("state")).isEqualTo(1);
        JsonObject last = json(Views.Page.of(new InstancePage(List.of(), null)));
        assertThat(last.get("nextCursor")).isEqualTo(JsonValue.NULL);
    }

    @Test
    void detailsCarryInboxChildrenParentAndWaits() {
        InstanceDetails d = InstanceDetails.builder(snapshot(8, Status.AWAITING_CHILDREN, "{}", "null"))
                .pendingSignals(List.of(new Signal(1, "go", value("{\"x\":1}"), "k1", T)), 3)
                .children(Map.of(Status.DONE, 2L, Status.RUNNABLE, 1L))
                .parent(snapshot(2, Status.AWAITING_CHILDREN, "{}", "null"))
                .gate(new InstanceDetails.Gate("psp:acme", "psp", true, 2, 1, 1.0))
                .build();
        JsonObject j = json(Views.Details.of(d));
        assertThat(j.getJsonObject("instance").getInt("id")).isEqualTo(8);
        assertThat(j.getInt("pendingSignalCount")).isEqualTo(3);
        assertThat(j.getJsonArray("pendingSignals").getJsonObject(0).getJsonObject("payload").getInt("x")).isEqualTo(1);
        assertThat(j.getJsonObject("children").getInt("DONE")).isEqualTo(2);
        assertThat(j.getJsonObject("children").getInt("FAILED")).isZero();
        assertThat(j.getInt("childrenTotal")).isEqualTo(3);
        assertThat(j.getJsonObject("parent").getInt("id")).isEqualTo(2);
        assertThat(j.getJsonObject("gate").getString("concurrencyKey")).isEqualTo("psp:acme");
        assertThat(j.getJsonObject("gate").getInt("limit")).isEqualTo(2);
        assertThat(j.get("claim")).as("no claim: null or left out").isIn(null, JsonValue.NULL);
        assertThat(j.get("rateLimit")).as("no rate limit: null or left out").isIn(null, JsonValue.NULL);
    }

    @Test
    void theSummaryMarksPausedQueuesAndWritesAgesAsDurations() {
        OperationsSummary s = new OperationsSummary(T, List.of(
                new QueueSummary("default", Map.of(Status.RUNNABLE, 4L), T.minusSeconds(90), Duration.ofSeconds(90), false),
                new QueueSummary("shipments", Map.of(Status.DONE, 1L), null, null, true)));
        JsonObject j = json(Views.Summary.of(s, List.of(new PausedQueue("shipments", T, "admin", "maintenance"))));
        assertThat(j.getString("at")).isEqualTo("2026-05-01T12:00:00Z");
        JsonObject first = j.getJsonArray("queues").getJsonObject(0);
        assertThat(first.getString("queue")).isEqualTo("default");
        assertThat(first.getJsonObject("counts").getInt("RUNNABLE")).isEqualTo(4);
        assertThat(first.getInt("total")).isEqualTo(4);
        assertThat(first.getString("oldestRunnableAge")).isEqualTo("PT1M30S");
        assertThat(first.getBoolean("paused")).isFalse();
        assertThat(j.getJsonArray("queues").getJsonObject(1).getBoolean("paused")).isTrue();
        assertThat(j.getJsonArray("paused").getJsonObject(0).getString("pausedBy")).isEqualTo("admin");
    }

    @Test
    void theSummaryCarriesItsAlerts() {
        OperationsSummary s = new OperationsSummary(T, List.of(
                new QueueSummary("orders", Map.of(Status.RUNNABLE, 2L), T, Duration.ZERO, false)),
                List.of(new QueueAlert("orders", QueueAlert.Kind.NO_NODE_SERVES, "2 runnable instances"),
                        new QueueAlert("x", QueueAlert.Kind.UNKNOWN_RATE_LIMIT, "rate limit 'y'")));
        JsonObject j = json(Views.Summary.of(s, List.of()));
        assertThat(j.getJsonArray("alerts")).hasSize(2);
        JsonObject first = j.getJsonArray("alerts").getJsonObject(0);
        assertThat(first.getString("queue")).isEqualTo("orders");
        assertThat(first.getString("kind")).isEqualTo("NO_NODE_SERVES");
        assertThat(first.getString("detail")).isEqualTo("2 runnable instances");
        assertThat(j.getJsonArray("alerts").getJsonObject(1).getString("kind")).isEqualTo("UNKNOWN_RATE_LIMIT");
        assertThat(json(Views.Summary.of(new OperationsSummary(T, List.of()), List.of())).getJsonArray("alerts"))
                .as("no alerts: an empty list").isEmpty();
    }

    @Test
    void theNodesHaveTheConsolesShape() {
        NodeStatus n = new NodeStatus("host-1", T.minusSeconds(3600), T, true,
                List.of(new FsmRegistration("order", 2, "orders", FsmRegistration.Kind.FSM)),
                List.of("default", "orders"), List.of("psp"), List.of("account"), Map.of("orders", 3),
                List.of(new ThroughputPoint("orders", Instant.parse("2026-05-01T11:59:00Z"), 10, 1)),
                List.of(new StepTiming("order", "ship", 12, Duration.ofMillis(12), Duration.ofMillis(20),
                        Duration.ofMillis(50), Duration.ofMillis(60))));
        JsonObject j = json(new Views.Nodes(T, List.of(n)));
        assertThat(j.keySet()).containsExactlyInAnyOrder("at", "nodes");
        assertThat(j.getString("at")).isEqualTo("2026-05-01T12:00:00Z");
        JsonObject node = j.getJsonArray("nodes").getJsonObject(0);
        assertThat(node.keySet()).containsExactlyInAnyOrder("node", "startedAt", "seenAt", "live", "fsms", "queues",
                "rateLimits", "gates", "inFlight", "throughput", "stepTimings");
        assertThat(node.getString("node")).isEqualTo("host-1");
        assertThat(node.getString("startedAt")).isEqualTo("2026-05-01T11:00:00Z");
        assertThat(node.getString("seenAt")).isEqualTo("2026-05-01T12:00:00Z");
        assertThat(node.getBoolean("live")).isTrue();
        JsonObject fsm = node.getJsonArray("fsms").getJsonObject(0);
        assertThat(fsm.getString("name")).isEqualTo("order");
        assertThat(fsm.getInt("version")).isEqualTo(2);
        assertThat(fsm.getString("queue")).isEqualTo("orders");
        assertThat(fsm.getString("kind")).isEqualTo("FSM");
        assertThat(node.getJsonArray("queues").getString(1)).isEqualTo("orders");
        assertThat(node.getJsonArray("rateLimits").getString(0)).isEqualTo("psp");
        assertThat(node.getJsonArray("gates").getString(0)).isEqualTo("account");
        assertThat(node.getJsonObject("inFlight").getInt("orders")).isEqualTo(3);
        JsonObject point = node.getJsonArray("throughput").getJsonObject(0);
        assertThat(point.getString("queue")).isEqualTo("orders");
        assertThat(point.getString("minute")).isEqualTo("2026-05-01T11:59:00Z");
        assertThat(point.getInt("completed")).isEqualTo(10);
        assertThat(point.getInt("failed")).isEqualTo(1);
        JsonObject timing = node.getJsonArray("stepTimings").getJsonObject(0);
        assertThat(timing.getString("fsm")).isEqualTo("order");
        assertThat(timing.getString("step")).isEqualTo("ship");
        assertThat(timing.getInt("count")).isEqualTo(12);
        assertThat(timing.getString("p50")).isEqualTo("PT0.012S");
        assertThat(timing.getString("p90")).isEqualTo("PT0.02S");
        assertThat(timing.getString("p99")).isEqualTo("PT0.05S");
        assertThat(timing.getString("max")).isEqualTo("PT0.06S");
    }
}
