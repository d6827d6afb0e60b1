package io.gendurable.impl.db;

import io.gendurable.testing.SharedTestDatabase;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The claim returns its timestamps as epoch microseconds; {@link Jdbc#micros} reads them back exactly. */
class JdbcMicrosTest {
    @Test
    void microseconds_since_the_epoch_read_back_to_the_same_instant_on_both_sides_of_1970() {
        assertThat(Jdbc.micros(0)).isEqualTo(Instant.EPOCH);
        assertThat(Jdbc.micros(1)).isEqualTo(Instant.parse("1970-01-01T00:00:00.000001Z"));
        assertThat(Jdbc.micros(-1)).isEqualTo(Instant.parse("1969-12-31T23:59:59.999999Z"));
        assertThat(Jdbc.micros(1_764_590_400_123_456L)).isEqualTo(Instant.parse("2025-12-01T12:00:00.123456Z"));
    }

    @Test
    void the_claims_extract_expression_gives_the_server_timestamp_to_the_microsecond() throws Exception {
        try (Connection c = SharedTestDatabase.dataSource().getConnection();
             ResultSet rs = c.createStatement().executeQuery("SELECT (extract(epoch FROM t) * 1000000)::bigint, t "
                     + "FROM (VALUES (timestamptz '2026-12-01 13:24:35.987654+00'), (timestamptz '1969-07-20 20:17:40.000001+00')) v(t)")) {
            while (rs.next()) {
                assertThat(Jdbc.micros(rs.getLong(1)))
                        .isEqualTo(rs.getObject(2, java.time.OffsetDateTime.class).toInstant());
            }
        }
    }
}
