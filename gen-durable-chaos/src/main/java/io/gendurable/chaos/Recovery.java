package io.gendurable.chaos;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Sums what the workers' logs say about recovery: rows the reapers and the start-up reclaims returned. */
final class Recovery {
    private static final Pattern REAPED = Pattern.compile("reaper: (\\d+) expired leases returned");
    private static final Pattern RECLAIMED = Pattern.compile("released (\\d+) claims of a dead predecessor");
    // the drain's own log line is often lost (JUL's shutdown hook races the engine's); the final metrics line is not
    private static final Pattern RELEASED = Pattern.compile("released=(\\d+) .*\\(after the drain\\)");
    private static final Pattern POKE = Pattern.compile("poke listener reconnected");

    private Recovery() {
    }

    /** @param logs the run's log directory @return a one-line summary */
    static String scan(File logs) {
        long reaped = 0;
        long reclaimed = 0;
        long released = 0;
        long pokeReconnects = 0;
        long loopFailures = 0;
        File[] files = logs.listFiles((d, n) -> n.startsWith("worker-"));
        for (File f : files == null ? new File[0] : files) {
            String text;
            try {
                text = Files.readString(f.toPath());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            reaped += sum(REAPED.matcher(text));
            reclaimed += sum(RECLAIMED.matcher(text));
            released += sum(RELEASED.matcher(text));
            pokeReconnects += POKE.matcher(text).results().count();
            loopFailures += Pattern.compile("failed; it will run again").matcher(text).results().count();
        }
        return "reaper returned " + reaped + " rows, start-up reclaim " + reclaimed + ", drain released " + released
                + "; poke listener reconnects " + pokeReconnects + "; background loop failures survived " + loopFailures;
    }

    private static final Pattern METRICS = Pattern.compile("metrics at=(\\d+) .*? stale=(\\d+) ");

    /**
     * The engine's own count of stale outcomes on each paused node after its pause: in each log
     * of an incarnation that was running when the pause began, the last {@code stale=} figure
     * minus the last one printed before the pause.
     *
     * @return pause ("node@startedAt") → {stale outcomes counted after it}
     */
    static java.util.Map<String, long[]> staleAfterPauses(File logs, java.util.List<Saboteur.Pause> pauses) {
        java.util.Map<String, long[]> out = new java.util.LinkedHashMap<>();
        File[] files = logs.listFiles((d, n) -> n.startsWith("worker-"));
        for (Saboteur.Pause p : pauses) {
            long stale = 0;
            for (File f : files == null ? new File[0] : files) {
                if (!f.getName().endsWith("-" + p.node() + ".log")) {
                    continue;
                }
                long before = -1;
                long last = -1;
                boolean after = false;
                try {
                    Matcher m = METRICS.matcher(Files.readString(f.toPath()));
                    while (m.find()) {
                        long at = Long.parseLong(m.group(1));
                        long s = Long.parseLong(m.group(2));
                        if (at <= p.startedAt()) {
                            before = s;
                        } else {
                            after = true;
                        }
                        last = s;
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                if (before >= 0 && after) {
                    stale += last - before;
                }
            }
            out.put(p.node() + "@" + p.startedAt(), new long[] {stale});
        }
        return out;
    }

    private static long sum(Matcher m) {
        long n = 0;
        while (m.find()) {
            n += Long.parseLong(m.group(1));
        }
        return n;
    }
}
