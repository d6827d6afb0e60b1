package io.gendurable;

import java.time.Duration;

/**
 * Run once after a burst ({@link InsertOptions.Builder#debounce(String, Duration)}): an insert with
 * a debounce key, while an instance of the same FSM with that key is still waiting for its first
 * start, inserts nothing; it moves that instance's start to {@code window} after itself (never
 * earlier) and, with {@link State#LAST}, gives it its state. The instance starts once no insert of
 * its key came for a whole window. Once it has been claimed, the next insert of the key inserts a
 * new instance, which waits for a window of its own. Two nodes inserting the same key at once meet
 * at a unique index: one inserts, the other debounces into it.
 *
 * @param key    the debounce key, per FSM: not null or blank, at most 255 characters
 * @param window how long the instance waits after the latest insert of its key: from 1 ms to 30 days
 * @param state  whose state the instance runs with: the latest insert's ({@link State#LAST}) or the first's
 */
public record Debounce(String key, Duration window, State state) {

    /** The longest window accepted: anything longer is a unit mistake (and would starve the key's work). */
    public static final Duration MAX_WINDOW = Duration.ofDays(30);

    /** Whose state a debounced instance runs with. */
    public enum State {
        /** each insert of the key replaces the waiting instance's state: the last write wins */
        LAST,
        /** the waiting instance keeps the state it was inserted with; later inserts only move its start */
        FIRST
    }

    /**
     * Validates the fields.
     *
     * @param key    the debounce key, per FSM: not null or blank, at most 255 characters
     * @param window how long the instance waits after the latest insert of its key: from 1 ms to 30 days
     * @param state  whose state the instance runs with; not null
     * @throws IllegalArgumentException naming the field and the accepted values
     */
    public Debounce {
        Validation.requireName("debounce key", key);
        if (window == null || window.compareTo(Duration.ofMillis(1)) < 0 || window.compareTo(MAX_WINDOW) > 0) {
            throw new IllegalArgumentException("debounce window must be from 1 ms to 30 days (" + MAX_WINDOW + "), got "
                    + window);
        }
        if (state == null) {
            throw new IllegalArgumentException("debounce state must be one of "
                    + java.util.Arrays.toString(State.values()) + ", got null");
        }
    }

    /**
     * @param key    the debounce key
     * @param window the window
     * @return a debounce whose latest insert's state wins ({@link State#LAST})
     */
    public static Debounce of(String key, Duration window) {
        return new Debounce(key, window, State.LAST);
    }
}
