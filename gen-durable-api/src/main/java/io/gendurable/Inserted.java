package io.gendurable;

/**
 * The answer to an insert.
 *
 * @param id        the new instance's id; when {@code duplicate}, the id of the live instance that
 *                  already holds the correlation key; when {@code debounced}, the id of the waiting
 *                  instance of the debounce key that took this insert
 * @param duplicate true when the correlation key was taken and nothing was written
 * @param debounced true when an instance of the FSM with the same debounce key was waiting for its
 *                  first start: nothing was inserted, its start moved to the window's end (and,
 *                  with {@link Debounce.State#LAST}, it took this insert's state)
 */
public record Inserted(long id, boolean duplicate, boolean debounced) {

    /**
     * An answer that was not debounced.
     *
     * @param id        the new instance's id, or the live holder's when {@code duplicate}
     * @param duplicate true when the correlation key was taken and nothing was written
     */
    public Inserted(long id, boolean duplicate) {
        this(id, duplicate, false);
    }
}
