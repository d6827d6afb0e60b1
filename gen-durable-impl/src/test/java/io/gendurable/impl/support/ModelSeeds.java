package io.gendurable.impl.support;

import java.util.ArrayList;
import java.util.List;

/** The seeds of a model-based test: 1, 2 and 3 (every run replays them), then fresh ones from the clock. */
public final class ModelSeeds {
    private ModelSeeds() {
    }

    /** @param count how many seeds (a test's {@code *.model.seeds} property) @return that many seeds */
    public static List<Long> of(int count) {
        List<Long> seeds = new ArrayList<>(List.of(1L, 2L, 3L));
        long extra = System.nanoTime();
        for (int i = seeds.size(); i < count; i++) {
            seeds.add(extra + i);
        }
        return new ArrayList<>(seeds.subList(0, Math.min(count, seeds.size())));
    }
}
