package io.gendurable.admin.requests;

import io.gendurable.admin.problems.AdminProblem;

import jakarta.json.JsonValue;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonBodyTest {
    private static final Set<String> FIELDS = Set.of("reason", "flag", "n", "at", "state");

    private static void rejected(String body, String expected) {
        assertThatThrownBy(() -> {
            JsonBody b = JsonBody.parse(body, FIELDS);
            b.string("reason");
            b.bool("flag", false);
            b.wholeNumber("n");
            b.instant("at");
        }).isInstanceOfSatisfying(AdminProblem.class, p -> assertThat(p.status()).isEqualTo(400))
                .hasMessageContaining(expected);
    }

    @Test
    void theBodyIsExactlyOneObject() {
        // before: an empty body counted as {}, and whatever followed the object was ignored
        rejected(null, "the body must be a JSON object ({} when there is nothing to say), got nothing");
        rejected("", "got nothing");
        rejected("  \n", "got nothing");
        rejected("{\"reason\":\"why\"}{\"reason\":\"other\"}", "the body must be a JSON object");
        rejected("{\"reason\":\"why\"} x", "the body must be a JSON object");
        rejected("{\"reason\":\"why\"},", "the body must be a JSON object");
        rejected("{}[]", "the body must be a JSON object");
        assertThat(JsonBody.parse(" {} \n", FIELDS).string("reason")).isNull();
    }

    @Test
    void aKeyTwiceIsRefusedAtAnyDepth() {
        // before: the last one won (another reader may keep the first)
        rejected("{\"reason\":\"a\",\"reason\":\"b\"}", "the body has the key 'reason' twice in one object");
        rejected("{\"state\":{\"x\":1,\"y\":[{\"z\":1,\"z\":2}]}}", "the key 'z' twice");
        JsonBody b = JsonBody.parse("{\"state\":{\"x\":{\"x\":1},\"y\":[{\"x\":2},{\"x\":3}]}}", FIELDS);
        assertThat(b.value("state")).get().extracting(JsonValue::toString).isEqualTo("{\"x\":{\"x\":1},\"y\":[{\"x\":2},{\"x\":3}]}");
    }

    @Test
    void theParsersMessageIsNotEchoed() {
        assertThatThrownBy(() -> JsonBody.parse("{\"reason\": secret-token-abc}", FIELDS))
                .isInstanceOf(AdminProblem.class).hasMessageNotContaining("secret-token-abc")
                .hasMessageContaining("not JSON at line 1");
    }

    @Test
    void readsEachKind() {
        JsonBody b = JsonBody.parse("{\"reason\":\"why\",\"flag\":true,\"n\":42,\"at\":\"2026-03-01T10:00:00+02:00\","
                + "\"state\":{\"a\":[1,2]}}", FIELDS);
        assertThat(b.string("reason")).isEqualTo("why");
        assertThat(b.bool("flag", false)).isTrue();
        assertThat(b.wholeNumber("n")).isEqualTo(42L);
        assertThat(b.intNumber("n")).isEqualTo(42);
        assertThat(b.instant("at")).isEqualTo(Instant.parse("2026-03-01T08:00:00Z"));
        assertThat(b.value("state")).get().extracting(JsonValue::toString).isEqualTo("{\"a\":[1,2]}");
    }

    @Test
    void jsonNullIsAbsentButStillSeenAsAValue() {
        JsonBody b = JsonBody.parse("{\"reason\":null,\"state\":null}", FIELDS);
        assertThat(b.string("reason")).isNull();
        assertThat(b.value("state")).contains(JsonValue.NULL);
    }

    @Test
    void wrongBodiesAndFieldsAreNamed() {
        rejected("{", "the body must be a JSON object");
        rejected("[1]", "the body must be a JSON object, got an array");
        rejected("\"x\"", "the body must be a JSON object, got a string");
        rejected("{\"withDescendents\":true}", "unknown field 'withDescendents'");
        rejected("{\"reason\":5}", "reason must be a string, got the number 5");
        rejected("{\"flag\":\"yes\"}", "flag must be true or false, got a string");
        rejected("{\"n\":1.5}", "n must be a whole number");
        rejected("{\"n\":99999999999999999999999}", "n is out of range");
        rejected("{\"at\":\"tomorrow\"}", "at must be an ISO-8601 instant");
    }

    @Test
    void anIntFieldOutsideTheIntRangeIsRefused() {
        assertThatThrownBy(() -> JsonBody.parse("{\"n\":3000000000}", FIELDS).intNumber("n"))
                .isInstanceOf(AdminProblem.class).hasMessageContaining("n is out of range, got 3000000000");
    }

    @Test
    void deepNestingIsABadRequestNotAServerError() {
        // before: nesting past the JSON parser's own limit (1,000 in Parsson) was a 500
        for (int depth : new int[]{JsonBody.MAX_DEPTH, 1_001, 100_000}) {
            String deep = "{\"state\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
            assertThatThrownBy(() -> JsonBody.parse(deep, FIELDS)).as("depth " + depth)
                    .isInstanceOfSatisfying(AdminProblem.class, p -> assertThat(p.status()).isEqualTo(400))
                    .hasMessage("the body nests objects and arrays more than " + JsonBody.MAX_DEPTH + " levels deep");
        }
        String fine = "{\"state\":" + "[".repeat(JsonBody.MAX_DEPTH - 1) + "]".repeat(JsonBody.MAX_DEPTH - 1) + "}";
        assertThat(JsonBody.parse(fine, FIELDS).value("state")).isPresent();
    }
}
