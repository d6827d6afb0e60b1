package io.gendurable.sample;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The REST endpoints' input checks: each bad value answers a 400 message naming the parameter. */
class OrderInputTest {

    @Test
    void bad_path_query_header_and_body_input_is_refused_with_a_message_naming_the_parameter() {
        assertThat(OrderInput.name("orderId", "bad id")).contains("orderId must match");
        assertThat(OrderInput.name("orderId", "x'); DROP TABLE gen_durable; --")).contains("orderId");
        assertThat(OrderInput.name("account", "a".repeat(65))).contains("account");
        assertThat(OrderInput.name("signal name", null)).contains("signal name");
        assertThat(OrderInput.parcels("0")).contains("parcels");
        assertThat(OrderInput.parcels("21")).contains("parcels");
        assertThat(OrderInput.parcels("two")).contains("parcels");
        assertThat(OrderInput.id("-1")).contains("id must be a positive number");
        assertThat(OrderInput.id("99999999999999999999")).contains("id");
        assertThat(OrderInput.id("1 OR 1=1")).contains("id");
        assertThat(OrderInput.idempotencyKey("k".repeat(256))).contains("Idempotency-Key");
        assertThat(OrderInput.idempotencyKey("evt 1")).contains("Idempotency-Key");
        assertThat(OrderInput.idempotencyKey("evt\u00001")).contains("Idempotency-Key");
        assertThat(OrderInput.body("x".repeat(OrderInput.MAX_BODY_CHARS + 1))).contains("at most 65536");
        assertThat(OrderInput.waitOrNull("soon")).isNull();
        assertThat(OrderInput.waitOrNull("-PT1S")).isNull();
        assertThat(OrderInput.waitOrNull("PT31S")).isNull();
        assertThat(OrderInput.waitError("soon")).contains("wait must be an ISO-8601 duration");
        assertThat(OrderInput.until("forever")).contains("until must be terminal or settled");
    }

    @Test
    void good_input_passes_every_check() {
        assertThat(OrderInput.name("orderId", "rest-42_A")).isNull();
        assertThat(OrderInput.parcels("20")).isNull();
        assertThat(OrderInput.id("123")).isNull();
        assertThat(OrderInput.idempotencyKey(null)).isNull();
        assertThat(OrderInput.idempotencyKey("psp-evt-991")).isNull();
        assertThat(OrderInput.body(null)).isNull();
        assertThat(OrderInput.body("{\"amount\": 5}")).isNull();
        assertThat(OrderInput.waitOrNull("PT5S")).isEqualTo(Duration.ofSeconds(5));
        assertThat(OrderInput.waitOrNull("PT0S")).isEqualTo(Duration.ZERO);
        assertThat(OrderInput.until("SETTLED")).isNull();
    }
}
