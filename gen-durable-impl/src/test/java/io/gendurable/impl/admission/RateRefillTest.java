package io.gendurable.impl.admission;

import io.gendurable.impl.config.EngineConfig;
import io.gendurable.impl.db.Statements;
import io.gendurable.impl.fsm.FsmRegistry;
import io.gendurable.impl.json.Json;
import io.gendurable.impl.runtime.EngineContext;
import io.gendurable.impl.runtime.EngineEvents;
import io.gendurable.impl.config.LimitsConfig;
import io.gendurable.impl.db.Db;
import io.gendurable.impl.db.EnginePersistence;
import io.gendurable.impl.db.Migrations;
import io.gendurable.impl.db.SchemaName;
import io.gendurable.impl.runtime.EngineMetrics;
import io.gendurable.impl.support.EngineHarness;
import io.gendurable.impl.support.EngineTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rate bucket's {@code last_refill} never moves back. Two admissions whose clocks disagree,
 * because two nodes' clocks differ, or because one admission read the time and then waited for
 * the CPU while another, later, refilled and committed: the one with the earlier instant refilled
 * nothing (time had not passed for it) but wrote its earlier instant back as {@code last_refill},
 * so the next refill counted the same interval a second time and the bucket gave out more than
 * {@code burst + rate × elapsed} (RateLimitTest's bound was seen exceeded by a third of a token
 * on a loaded machine). Here: rate 10/s, burst 10. Node A (its clock one second ahead) drains the
 * burst; node B (on time) is denied and, before the fix, wrote {@code last_refill} one second
 * back; A, at the same instant as before, was then given 10 more tokens.
 */
@EngineTest
class RateRefillTest {
    EngineHarness h;
    Db db;

    @BeforeEach
    void up(EngineHarness h) {
        this.h = h;
        SchemaName schema = new SchemaName(h.schema());
        Migrations.migrate(h.dataSource(), schema);
        db = new Db(EnginePersistence.create(h.dataSource(), schema));
    }

    @AfterEach
    void down() {
        db.close();
    }

    private PostgresLimiter limiter(InstantSource clock) {
        LimitsConfig limits = new LimitsConfig(Map.of("api", new LimitsConfig.RateLimit("api", 10, Duration.ofSeconds(1), 10, 1)),
                Map.of());
        EngineConfig config = EngineConfig.defaults().toBuilder().schema(h.schema()).limits(limits).build();
        return new PostgresLimiter(new EngineContext(config, new FsmRegistry(), db, new Statements(new SchemaName(h.schema())),
                clock, new EngineMetrics(), EngineEvents.NONE, new Json(), null, null));
    }

    private static int admitted(PostgresLimiter l, int n) {
        List<Limiter.Candidate> cs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            cs.add(new Limiter.Candidate(i + 1, i + 1, null, "api", 1));
        }
        return l.admit(cs, "default").admitted().size();
    }

    @Test
    void an_admission_with_an_earlier_clock_never_moves_last_refill_back() {
        Instant t0 = Instant.parse("2026-12-01T10:00:00Z");
        PostgresLimiter nodeA = limiter(InstantSource.fixed(t0.plusSeconds(1)));
        PostgresLimiter nodeB = limiter(InstantSource.fixed(t0));

        assertThat(admitted(nodeA, 10)).as("A drains the burst").isEqualTo(10);
        assertThat(admitted(nodeB, 1)).as("B: nothing left, no time passed for it").isZero();
        assertThat(admitted(nodeA, 10)).as("A again, at the same instant: no time passed").isZero();
        assertThat(admitted(limiter(InstantSource.fixed(t0.plusMillis(1500))), 10))
                .as("half a second after A's instant: five tokens").isEqualTo(5);
    }
}
