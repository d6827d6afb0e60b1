package io.gendurable.admin.problems;

import io.gendurable.admin.access.AdminFilter;
import io.gendurable.admin.SchedulesResource;

import io.gendurable.CorrelationKeyHeldException;
import io.gendurable.EngineStoppedException;
import io.gendurable.InstanceStateException;
import io.gendurable.NoSuchInstanceException;
import io.gendurable.Status;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.bind.JsonbException;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;

class ProblemTranslatorTest {

    private static AdminProblem problem(RuntimeException e) {
        RuntimeException t = ProblemTranslator.translate(e);
        assertThat(t).isInstanceOf(AdminProblem.class).hasCause(e);
        return (AdminProblem) t;
    }

    private static JsonObject json(AdminProblem p) {
        return Json.createReader(new StringReader(p.toJson("/api/gendurable/instances/5"))).readObject();
    }

    @Test
    void badInputIs400WithTheFieldMessage() {
        AdminProblem p = problem(new IllegalArgumentException("priority must be 0 or more, got -1"));
        JsonObject j = json(p);
        assertThat(j.getString("type")).isEqualTo(Problem.TYPE_INVALID_INPUT);
        assertThat(j.getInt("status")).isEqualTo(400);
        assertThat(j.getString("title")).isEqualTo("Invalid input");
        assertThat(j.getString("detail")).isEqualTo("priority must be 0 or more, got -1");
        assertThat(j.getString("instance")).isEqualTo("/api/gendurable/instances/5");
        assertThat(problem(new JsonbException("NUL")).status()).isEqualTo(400);
    }

    @Test
    void aValueJsonbCannotReadIsA400ThatNamesNoClass() {
        // before: the detail was the exception's message, naming the application's classes
        String leak = "retry of instance 5: the replacement state does not read as io.example.secret.OrderState, the state "
                + "type of order v1: Unable to deserialize property 'parcels' because of: Cannot cast java.lang.String";
        for (RuntimeException e : new RuntimeException[]{new IllegalArgumentException(leak, new JsonbException("x")),
                new JsonbException("Unable to deserialize property 'x' of io.example.secret.OrderState")}) {
            JsonObject j = json(problem(e));
            assertThat(j.getInt("status")).isEqualTo(400);
            assertThat(j.getString("type")).isEqualTo(Problem.TYPE_INVALID_INPUT);
            assertThat(j.toString()).doesNotContain("io.example").doesNotContain("java.lang").doesNotContain("OrderState");
            assertThat(j.getString("detail")).endsWith("problem id " + j.getString("problemId"));
        }
    }

    @Test
    void anUnknownSchedulesNameIsQuotedOnlyInPart() {
        // before: a 5,000-character name came back whole, twice
        String name = "x".repeat(5_000) + "\n";
        AdminProblem p = SchedulesResource.noSuchSchedule(name);
        assertThat(p.status()).isEqualTo(404);
        assertThat(p.toJson(null).length()).isLessThan(600);
        assertThat(p.getMessage()).isEqualTo("no schedule is named '" + "x".repeat(80) + "…'");
        assertThat(SchedulesResource.noSuchSchedule("nightly").getMessage()).isEqualTo("no schedule is named 'nightly'");
        assertThat(SchedulesResource.noSuchSchedule("nightly").extensions()).containsEntry("name", "nightly");
    }

    @Test
    void anUnknownInstanceIs404WithItsId() {
        JsonObject j = json(problem(new NoSuchInstanceException(5)));
        assertThat(j.getInt("status")).isEqualTo(404);
        assertThat(j.getString("type")).isEqualTo(Problem.TYPE_NO_SUCH_INSTANCE);
        assertThat(j.getJsonNumber("id").longValue()).isEqualTo(5);
    }

    @Test
    void aWrongStatusIs409WithTheCurrentAndAcceptedOnes() {
        JsonObject j = json(problem(new InstanceStateException("cancel", 5, Status.DONE,
                EnumSet.of(Status.RUNNABLE, Status.AWAITING_SIGNAL))));
        assertThat(j.getInt("status")).isEqualTo(409);
        assertThat(j.getString("type")).isEqualTo(Problem.TYPE_INSTANCE_STATE);
        assertThat(j.getString("currentStatus")).isEqualTo("DONE");
        assertThat(j.getJsonArray("acceptedStatuses").toString()).isEqualTo("[\"AWAITING_SIGNAL\",\"RUNNABLE\"]");
    }

    @Test
    void aHeldKeyIs409WithTheHolder() {
        JsonObject j = json(problem(new CorrelationKeyHeldException(5, "order:1", 9)));
        assertThat(j.getInt("status")).isEqualTo(409);
        assertThat(j.getString("type")).isEqualTo(Problem.TYPE_CORRELATION_KEY_HELD);
        assertThat(j.getString("correlationKey")).isEqualTo("order:1");
        assertThat(j.getJsonNumber("holderId").longValue()).isEqualTo(9);
    }

    @Test
    void aStoppedEngineIs503() {
        JsonObject j = json(problem(new EngineStoppedException("stopping")));
        assertThat(j.getInt("status")).isEqualTo(503);
        assertThat(j.getString("type")).isEqualTo(Problem.TYPE_ENGINE_STOPPED);
    }

    @Test
    void anythingElseIsA500WithAFixedDetailAndAProblemId() {
        // before: it went on unchanged to the server, whose mapper answered with its message
        // (Open Liberty even in a header: "…EMCallbackImpl.Exception: JDBCConnectionException … 127.0.0.1:54329 refused")
        IllegalStateException e = new IllegalStateException("Connection to 127.0.0.1:54329 refused");
        AdminProblem p = problem(e);
        assertThat(p.status()).isEqualTo(500);
        assertThat(p.type()).isEqualTo(Problem.TYPE_INTERNAL_ERROR);
        JsonObject j = json(p);
        assertThat(j.toString()).doesNotContain("54329").doesNotContain("IllegalStateException");
        String id = j.getString("problemId");
        assertThat(id).matches("[0-9a-f-]{36}");
        assertThat(j.getString("detail")).isEqualTo("the server could not complete the request; its log has the cause "
                + "under problem id " + id);
        assertThat(problem(new IllegalStateException("x")).problemId()).isNotEqualTo(id);
        AdminProblem already = AdminProblem.invalidInput("x");
        assertThat(ProblemTranslator.translate(already)).isSameAs(already);
    }

    @Test
    void aRuntimesErrorStatusGetsAFixedDetail() {
        assertThat(AdminProblem.forStatus(404, null).type()).isEqualTo(Problem.TYPE_NOT_FOUND);
        assertThat(AdminProblem.forStatus(405, null).type()).isEqualTo(Problem.TYPE_METHOD_NOT_ALLOWED);
        assertThat(AdminProblem.forStatus(406, null).type()).isEqualTo(Problem.TYPE_REFUSED);
        assertThat(AdminProblem.forStatus(503, null).problemId()).isNotNull();
        assertThat(AdminFilter.leaky("io.openliberty.microprofile.metrics.internal.monitor.MetricsRestfulWsEMCallbackImpl.Exception"))
                .isTrue();
        assertThat(AdminFilter.leaky("X-Exception")).isTrue();
        for (String ok : new String[]{"Content-Type", "WWW-Authenticate", "Cache-Control", "ETag", "Location", "Vary",
                "io.openliberty.trace"}) {
            assertThat(AdminFilter.leaky(ok)).as(ok).isFalse();
        }
    }
}
