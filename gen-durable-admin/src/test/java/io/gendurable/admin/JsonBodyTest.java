package io.gendurable.admin;

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
    void anEmptyBodyHasNoField() {
        for (String body : new String[]{null, "", "  \n"}) {
            JsonBody b = JsonBody.parse(body, FIELDS);
            assertThat(b.string("reason")).isNull();
            assertThat(b.bool("flag", true)).isTrue();
            assertThat(b.wholeNumber("n")).isNull();
            assertThat(b.value("state")).isEmpty();
        }
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
}
