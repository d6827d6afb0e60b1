package io.gendurable.impl.cdi.resources;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.naming.NoInitialContextException;
import java.util.List;
import java.util.Optional;

/**
 * Looks names up in JNDI. A function rather than a context so tests can stand in a map; the
 * container's version is {@link #initialContext()}.
 */
@FunctionalInterface
public interface JndiLookup {

    /**
     * @param name a JNDI name
     * @return the bound object
     * @throws NamingException when nothing is bound, or there is no JNDI at all (Java SE)
     */
    Object lookup(String name) throws NamingException;

    /** @return lookups through a new {@link InitialContext} each time (start-up only, so the cost is irrelevant) */
    static JndiLookup initialContext() {
        return name -> {
            InitialContext ctx = new InitialContext();
            try {
                return ctx.lookup(name);
            } finally {
                ctx.close();
            }
        };
    }

    /**
     * Looks a name up, and turns "not bound", "no JNDI here" and "bound to something else" into
     * an empty answer plus a line in {@code tried} for the failure message.
     *
     * @param name  the JNDI name
     * @param type  the expected type
     * @param tried collects one line per failed attempt
     * @param <T>   the expected type
     * @return the bound object, if it exists and has the type
     */
    default <T> Optional<T> find(String name, Class<T> type, List<String> tried) {
        Object found;
        try {
            found = lookup(name);
        } catch (NoInitialContextException e) {
            tried.add("JNDI " + name + ": no JNDI here (no initial context)");
            return Optional.empty();
        } catch (NamingException | RuntimeException e) {
            tried.add("JNDI " + name + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"));
            return Optional.empty();
        }
        if (type.isInstance(found)) {
            return Optional.of(type.cast(found));
        }
        tried.add("JNDI " + name + ": bound to " + (found == null ? "null" : found.getClass().getName())
                + ", not a " + type.getName());
        return Optional.empty();
    }
}
