package io.gendurable.testing.agreement;

import io.gendurable.Fsm;
import io.gendurable.testing.DurableTesting;
import io.gendurable.testing.DurableTestingBuilder;
import io.gendurable.testing.TestClock;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** The kit side of an agreement test: a {@link DurableTesting} on its own clock, built as a user's test builds it. */
final class Kits {
    private Kits() {
    }

    /** @return an instant both sides start at (now, to the millisecond) */
    static Instant start() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }

    /** @param config "key=value" settings, as in {@code @GenDurableTest(config = …)} @return the kit, built */
    static DurableTesting kit(TestClock clock, String[] config, Fsm<?>... fsms) {
        DurableTestingBuilder b = DurableTesting.builder().schemaHint("agree").clock(clock).fsm(fsms);
        for (String kv : config) {
            int eq = kv.indexOf('=');
            b.config(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return b.build();
    }

    /** @return {@code kv} as an array (readable call sites) */
    static String[] config(String... kv) {
        return kv;
    }
}
