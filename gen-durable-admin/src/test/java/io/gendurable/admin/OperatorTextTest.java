package io.gendurable.admin;

import io.gendurable.admin.requests.JsonBody;
import io.gendurable.admin.problems.Problem;
import io.gendurable.admin.access.AdminAudit;
import io.gendurable.admin.problems.AdminProblem;
import io.gendurable.admin.requests.Input;

import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An operator's text cannot forge a log line: control characters are refused in every string a
 * body or a path gives (before, a cancel reason with CR/LF wrote a line of its own, "operator
 * action RESUME_QUEUE … by viewer", into the server's log), and the audit record of an action is
 * one line of JSON whatever it carries.
 */
class OperatorTextTest {
    private static final String FORGED = "\r\n[12/4/26, 5:00:00:000 UTC] 0000004a io.gendurable.operations I "
            + "gen-durable operator action RESUME_QUEUE on queue default by viewer";

    @Test
    void everyStringFieldOfABodyRefusesControlCharacters() {
        for (String field : new String[]{"reason", "fromStep", "name", "correlationKey", "dedupKey"}) {
            for (String bad : new String[]{"a\nb", "a\rb", "a\tb", "\u001b[31mred", "a\u0085b", "a\u2028b", "a\u2029b",
                    "a\u202Eb", "a\u2066b", "a\u0000b", "a\u007Fb", "x" + FORGED}) {
                String body = "{\"" + field + "\":" + jakarta.json.Json.createValue(bad) + "}";
                assertThatThrownBy(() -> JsonBody.parse(body, Set.of(field)).string(field))
                        .as(field + " " + body)
                        .isInstanceOfSatisfying(AdminProblem.class, p -> assertThat(p.status()).isEqualTo(400))
                        .hasMessageStartingWith(field + " must not contain control characters")
                        .hasMessageNotContaining("\n").hasMessageNotContaining("\r");
            }
            assertThat(JsonBody.parse("{\"" + field + "\":\"Zoë's café — 20 € «ok» 日本\"}", Set.of(field)).string(field))
                    .isEqualTo("Zoë's café — 20 € «ok» 日本");
        }
    }

    @Test
    void aPathNameRefusesThemToo() {
        assertThatThrownBy(() -> Input.text("queue", "default" + FORGED)).isInstanceOf(AdminProblem.class)
                .hasMessageContaining("got U+000D at position 8");
        assertThat(Input.shown("a\nb")).isEqualTo("'a\\u000Ab'");
    }

    @Test
    void theAuditRecordIsOneLineOfJsonWhateverItCarries() {
        byte[] body = ("{\"reason\":" + jakarta.json.Json.createValue("why" + FORGED) + ",\"state\":{\"card\":\"4111\"}}")
                .getBytes(StandardCharsets.UTF_8);
        JsonObject r = AdminAudit.record("POST", "/app/api/gendurable/instances/12/cancel", "x=1", "ad\nmin", 400,
                Problem.TYPE_INVALID_INPUT, body);
        String line = AdminAudit.PREFIX + r;
        assertThat(line).doesNotContain("\n").doesNotContain("\r").doesNotContain("\u0085");
        assertThat(r.getString("method")).isEqualTo("POST");
        assertThat(r.getString("path")).isEqualTo("/app/api/gendurable/instances/12/cancel");
        assertThat(r.getString("query")).isEqualTo("x=1");
        assertThat(r.getString("user")).isEqualTo("ad\nmin");
        assertThat(r.getInt("status")).isEqualTo(400);
        assertThat(r.getString("problem")).isEqualTo(Problem.TYPE_INVALID_INPUT);
        assertThat(r.getJsonObject("fields").getString("reason")).isEqualTo("why" + FORGED);
        assertThat(r.getJsonObject("fields").getString("state")).isEqualTo("(given)");
        assertThat(line).doesNotContain("4111");

        JsonObject none = AdminAudit.record("DELETE", "/p", null, null, 200, null, null);
        assertThat(none.isNull("user")).isTrue();
        assertThat(none.getString("body")).isEqualTo("none");
        assertThat(none.containsKey("query")).isFalse();
        assertThat(AdminAudit.record("POST", "/p", null, "a", 403, Problem.TYPE_CROSS_SITE,
                "reason=x".getBytes(StandardCharsets.UTF_8)).getString("body")).isEqualTo("not one JSON object");
    }
}
