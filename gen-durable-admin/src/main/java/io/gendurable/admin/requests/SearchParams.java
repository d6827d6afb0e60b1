package io.gendurable.admin.requests;

import io.gendurable.admin.problems.AdminProblem;
import io.gendurable.admin.EngineChoice;

import io.gendurable.InstanceQuery;
import io.gendurable.Status;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The query parameters of a search, read into an {@link InstanceQuery}. Every parameter is
 * optional and single-valued except {@code status}, which may repeat and may list several
 * statuses separated by commas. A parameter this class does not know is refused: a misspelt
 * filter must not silently widen a search (nor, later, a bulk action taken by one).
 *
 * <p>Parameters: {@code fsm}, {@code fsmVersion}, {@code status}, {@code queue}, {@code step},
 * {@code correlationKey}, {@code correlationKeyPrefix}, {@code concurrencyKey}, {@code parentId},
 * {@code insertedFrom}, {@code insertedTo}, {@code updatedFrom}, {@code updatedTo} (ISO-8601
 * instants), {@code errorContains}, {@code pageSize}, {@code order} ({@code NEWEST_FIRST} or
 * {@code OLDEST_FIRST}) and {@code cursor} (a page's {@code nextCursor}).
 */
public final class SearchParams {
    /** The filter parameters: what selects instances. */
    public static final Set<String> FILTERS = Set.of("fsm", "fsmVersion", "status", "queue", "step", "correlationKey",
            "correlationKeyPrefix", "concurrencyKey", "parentId", "insertedFrom", "insertedTo", "updatedFrom", "updatedTo",
            "errorContains");

    /** The paging parameters. */
    public static final Set<String> PAGING = Set.of("pageSize", "order", "cursor");

    private SearchParams() {
    }

    /**
     * @param params the request's query parameters (decoded)
     * @param extra  other parameter names the caller accepts and reads itself
     * @return the query
     * @throws AdminProblem (400) naming the parameter when one is unknown, repeated or malformed, or
     *                      when the filters do not make a valid query
     */
    public static InstanceQuery query(Map<String, List<String>> params, Set<String> extra) {
        for (String name : params.keySet()) {
            if (!FILTERS.contains(name) && !PAGING.contains(name) && !extra.contains(name)
                    && !EngineChoice.PARAMETER.equals(name)) {
                Set<String> accepted = new TreeSet<>(FILTERS);
                accepted.addAll(PAGING);
                accepted.add(EngineChoice.PARAMETER);
                accepted.addAll(extra);
                throw AdminProblem.invalidInput("unknown query parameter '" + name + "'; accepted: " + accepted);
            }
        }
        InstanceQuery.Builder b = InstanceQuery.builder();
        String fsm = single(params, "fsm");
        String version = single(params, "fsmVersion");
        if (version != null) {
            if (fsm == null) {
                throw AdminProblem.invalidInput("fsmVersion needs fsm: a version is a version of one FSM");
            }
            b.fsm(fsm, Input.intNumber("fsmVersion", version));
        } else if (fsm != null) {
            b.fsm(fsm);
        }
        Set<Status> statuses = statuses(params.get("status"));
        if (statuses != null) {
            b.statuses(statuses);
        }
        b.queue(single(params, "queue"));
        b.step(single(params, "step"));
        b.correlationKey(single(params, "correlationKey"));
        b.correlationKeyPrefix(single(params, "correlationKeyPrefix"));
        b.concurrencyKey(single(params, "concurrencyKey"));
        String parent = single(params, "parentId");
        if (parent != null) {
            b.parentId(Input.id("parentId", parent));
        }
        b.inserted(instant(params, "insertedFrom"), instant(params, "insertedTo"));
        b.updated(instant(params, "updatedFrom"), instant(params, "updatedTo"));
        b.errorContains(single(params, "errorContains"));
        String pageSize = single(params, "pageSize");
        if (pageSize != null) {
            b.pageSize(Input.intNumber("pageSize", pageSize));
        }
        String order = single(params, "order");
        if (order != null) {
            b.order(order(order));
        }
        b.after(single(params, "cursor"));
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw AdminProblem.invalidInput(e.getMessage());
        }
    }

    private static String single(Map<String, List<String>> params, String name) {
        List<String> values = params.get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw AdminProblem.invalidInput(name + " must be given once, got " + values.size() + " values");
        }
        return values.get(0);
    }

    private static java.time.Instant instant(Map<String, List<String>> params, String name) {
        String text = single(params, name);
        return text == null ? null : Input.instant(name, text);
    }

    private static Set<Status> statuses(List<String> values) {
        if (values == null || values.isEmpty()) {
            return null;
        }
        Set<Status> statuses = EnumSet.noneOf(Status.class);
        for (String value : values) {
            for (String part : value.split(",", -1)) {
                String name = part.strip().toUpperCase(Locale.ROOT);
                try {
                    statuses.add(Status.valueOf(name));
                } catch (IllegalArgumentException e) {
                    throw AdminProblem.invalidInput("status must be one or more of " + Arrays.toString(Status.values())
                            + " (repeated or separated by commas), got " + Input.shown(part));
                }
            }
        }
        return statuses;
    }

    private static InstanceQuery.Order order(String text) {
        try {
            return InstanceQuery.Order.valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw AdminProblem.invalidInput("order must be NEWEST_FIRST or OLDEST_FIRST, got " + Input.shown(text));
        }
    }
}
