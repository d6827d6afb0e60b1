package io.gendurable;

/**
 * The answer to an insert.
 *
 * @param id        the new instance's id or, when {@code duplicate}, the id of the live instance
 *                  that already holds the correlation key
 * @param duplicate true when the correlation key was taken and nothing was inserted
 */
public record Inserted(long id, boolean duplicate) {
}
