package io.gendurable.admin;

import io.gendurable.admin.access.ConsoleSession;
import io.gendurable.admin.access.SessionFilter;
import io.gendurable.admin.problems.AdminProblem;

import io.gendurable.DurableEngine;
import io.gendurable.DurableOperations;
import io.gendurable.GenDurable;
import jakarta.enterprise.context.RequestScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;

import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The engine one admin request operates: the {@code engine} query parameter of any admin call
 * names one of the application's engines ({@code default}, or a name of {@code gendurable.engines});
 * without it, the default engine. An unknown name is refused (400) naming the parameter and the
 * engines there are, before anything is done.
 */
@RequestScoped
public class EngineChoice {
    /** The query parameter every admin resource accepts. */
    public static final String PARAMETER = "engine";

    @Inject
    @Any
    Instance<DurableOperations> operations;

    @Inject
    @Any
    Instance<GenDurable> engines;

    @Inject
    HttpServletRequest request;

    /**
     * @return the operations of the engine the request names, acting for the console session's
     * user when the request was signed in by one ({@link SessionFilter})
     * @throws AdminProblem (400) when the {@code engine} parameter is repeated, blank or names no engine
     */
    public DurableOperations operations() {
        DurableOperations ops = select(operations);
        // a console session's user, whom the container does not know as the request's principal
        return request.getAttribute(ConsoleSession.OPERATOR) instanceof String operator ? ops.actingFor(operator) : ops;
    }

    /**
     * @return the engine the request names, to send signals through
     * @throws AdminProblem (400) when the {@code engine} parameter is repeated, blank or names no engine
     */
    public GenDurable durable() {
        return select(engines);
    }

    /** @return the application's engines by name, the default one first */
    public List<String> names() {
        List<String> out = new ArrayList<>(byName(operations).keySet());
        out.remove(DurableEngine.DEFAULT);
        out.add(0, DurableEngine.DEFAULT);
        return out;
    }

    private <T> T select(Instance<T> beans) {
        String[] values = request.getParameterValues(PARAMETER);
        if (values == null) {
            return byName(beans).get(DurableEngine.DEFAULT).get();
        }
        if (values.length != 1 || values[0].isBlank()) {
            throw AdminProblem.invalidInput("query parameter '" + PARAMETER + "' must be given once, as one of "
                    + names());
        }
        Instance.Handle<T> h = byName(beans).get(values[0]);
        if (h == null) {
            throw AdminProblem.invalidInput("query parameter '" + PARAMETER + "': no engine named '" + values[0]
                    + "'; engines: " + names());
        }
        return h.get();
    }

    /** The beans by the value of their {@link DurableEngine} qualifier. */
    private static <T> Map<String, Instance.Handle<T>> byName(Instance<T> beans) {
        Map<String, Instance.Handle<T>> out = new TreeMap<>();
        for (Instance.Handle<T> h : beans.handles()) {
            for (Annotation q : h.getBean().getQualifiers()) {
                if (q instanceof DurableEngine e) {
                    out.putIfAbsent(e.value(), h);
                }
            }
        }
        if (!out.containsKey(DurableEngine.DEFAULT)) {
            // an engine bean without the qualifier (a test double, an older engine): it is the default one
            beans.handles().forEach(h -> out.putIfAbsent(DurableEngine.DEFAULT, h));
        }
        return out;
    }
}
