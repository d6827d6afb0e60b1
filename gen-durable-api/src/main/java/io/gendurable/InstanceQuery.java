package io.gendurable;

import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link DurableOperations#search(InstanceQuery)} looks for: any mix of filters (all of them
 * must match), the page size, the order and where the page starts. Every filter is optional:
 * null means "any". Build one with {@link #builder()}; the next page is
 * {@code query.after(page.nextCursor())}.
 *
 * <p>Pages are in instance id order ({@link Order#NEWEST_FIRST} by default). Ids come from one
 * sequence at insert, so id order is insertion order. Paging is by key, not by offset: a page
 * starts after the last id of the one before, so rows that change while an operator pages (a
 * status flips, a row is inserted or deleted) never make a later page repeat or skip another row.
 * A row that stops matching between two pages is simply not on the later one.
 *
 * @param fsm                  the FSM name, exactly; null for any
 * @param fsmVersion           the FSM version (needs {@code fsm}); null for any
 * @param statuses             the statuses, any of them; null for any (never empty)
 * @param queue                the queue, exactly; null for any
 * @param step                 the current (or last) step, exactly; null for any
 * @param correlationKey       the correlation key, exactly; null for any
 * @param correlationKeyPrefix a prefix of the correlation key (exclusive with {@code correlationKey}); null for any
 * @param concurrencyKey       the concurrency key, exactly; null for any
 * @param parentId             the parent's id: the children of that instance; null for any
 * @param insertedFrom         inserted at or after this instant; null for no lower bound
 * @param insertedTo           inserted before this instant; null for no upper bound
 * @param updatedFrom          last changed at or after this instant; null for no lower bound
 * @param updatedTo            last changed before this instant; null for no upper bound
 * @param errorContains        text the last error contains, ignoring case; null for any
 * @param pageSize             the most instances a page holds, 1 to {@value #MAX_PAGE_SIZE}; default {@value #DEFAULT_PAGE_SIZE}
 * @param order                newest or oldest first; default {@link Order#NEWEST_FIRST}
 * @param cursor               where the page starts: a {@link InstancePage#nextCursor()} of this
 *                             order; null for the first page
 */
public record InstanceQuery(String fsm, Integer fsmVersion, Set<Status> statuses, String queue, String step,
                            String correlationKey, String correlationKeyPrefix, String concurrencyKey,
                            Long parentId, Instant insertedFrom, Instant insertedTo, Instant updatedFrom,
                            Instant updatedTo, String errorContains, int pageSize, Order order, String cursor) {

    /** The page size when none is given. */
    public static final int DEFAULT_PAGE_SIZE = 50;

    /** The largest page size accepted. */
    public static final int MAX_PAGE_SIZE = 1000;

    /** The longest {@code errorContains} text accepted. */
    public static final int MAX_ERROR_TEXT = 1000;

    /** The order of a search's pages. */
    public enum Order {
        /** Highest id first: the most recently inserted instances first. */
        NEWEST_FIRST,
        /** Lowest id first: the earliest inserted instances first. */
        OLDEST_FIRST
    }

    /**
     * Validates every field.
     *
     * @param fsm the FSM name, exactly; null for any
     * @param fsmVersion the FSM version (needs {@code fsm}); null for any
     * @param statuses the statuses, any of them; null for any (never empty)
     * @param queue the queue, exactly; null for any
     * @param step the current (or last) step, exactly; null for any
     * @param correlationKey the correlation key, exactly; null for any
     * @param correlationKeyPrefix a prefix of the correlation key; null for any
     * @param concurrencyKey the concurrency key, exactly; null for any
     * @param parentId the parent's id; null for any
     * @param insertedFrom inserted at or after this instant; null for no lower bound
     * @param insertedTo inserted before this instant; null for no upper bound
     * @param updatedFrom last changed at or after this instant; null for no lower bound
     * @param updatedTo last changed before this instant; null for no upper bound
     * @param errorContains text the last error contains, ignoring case; null for any
     * @param pageSize the most instances a page holds, 1 to {@value #MAX_PAGE_SIZE}
     * @param order newest or oldest first; null for {@link Order#NEWEST_FIRST}
     * @param cursor where the page starts; null for the first page
     * @throws IllegalArgumentException naming the field and what it accepts
     */
    public InstanceQuery {
        Validation.optionalName("fsm", fsm);
        if (fsmVersion != null) {
            if (fsm == null) {
                throw new IllegalArgumentException("fsmVersion needs fsm: a version is a version of one FSM");
            }
            if (fsmVersion < 1) {
                throw new IllegalArgumentException("fsmVersion must be 1 or more, got " + fsmVersion);
            }
        }
        if (statuses != null) {
            if (statuses.isEmpty()) {
                throw new IllegalArgumentException("statuses must name at least one status (null for any); accepted: "
                        + Arrays.toString(Status.values()));
            }
            if (statuses.stream().anyMatch(Objects::isNull)) {
                throw new IllegalArgumentException("statuses must not contain null; accepted: " + Arrays.toString(Status.values()));
            }
            statuses = Collections.unmodifiableSet(EnumSet.copyOf(statuses));
        }
        Validation.optionalQueue(queue);
        Validation.optionalName("step", step);
        Validation.optionalName("correlationKey", correlationKey);
        Validation.optionalName("correlationKeyPrefix", correlationKeyPrefix);
        if (correlationKey != null && correlationKeyPrefix != null) {
            throw new IllegalArgumentException("correlationKey and correlationKeyPrefix are exclusive: give one of them");
        }
        Validation.optionalName("concurrencyKey", concurrencyKey);
        if (parentId != null && parentId < 1) {
            throw new IllegalArgumentException("parentId must be an instance id (1 or more), got " + parentId);
        }
        range("inserted", insertedFrom, insertedTo);
        range("updated", updatedFrom, updatedTo);
        if (errorContains != null) {
            if (errorContains.isEmpty()) {
                throw new IllegalArgumentException("errorContains must not be empty (null for any)");
            }
            if (errorContains.length() > MAX_ERROR_TEXT) {
                throw new IllegalArgumentException("errorContains must be at most " + MAX_ERROR_TEXT
                        + " characters, got " + errorContains.length());
            }
            if (errorContains.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("errorContains must not contain a NUL character (PostgreSQL text cannot store it)");
            }
        }
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new IllegalArgumentException("pageSize must be between 1 and " + MAX_PAGE_SIZE + ", got " + pageSize);
        }
        order = order == null ? Order.NEWEST_FIRST : order;
        if (cursor != null && (cursor.isBlank() || cursor.length() > 100)) {
            throw new IllegalArgumentException("cursor must be a nextCursor of an earlier page (null for the first page), got '"
                    + (cursor.length() > 100 ? cursor.substring(0, 100) + "…" : cursor) + "'");
        }
    }

    private static void range(String field, Instant from, Instant to) {
        within(field + "From", from);
        within(field + "To", to);
        if (from != null && to != null && !from.isBefore(to)) {
            throw new IllegalArgumentException(field + "From must be before " + field + "To (from is inclusive, to exclusive), got "
                    + from + " and " + to);
        }
    }

    private static void within(String field, Instant t) {
        if (t != null && (t.isAfter(Validation.MAX_INSTANT) || t.isBefore(Validation.MIN_INSTANT))) {
            throw new IllegalArgumentException(field + " must be within the years 1 to 9999, got " + t);
        }
    }

    /** @return a builder: no filter, {@value #DEFAULT_PAGE_SIZE} per page, newest first */
    public static Builder builder() {
        return new Builder();
    }

    /** @return every instance, {@value #DEFAULT_PAGE_SIZE} per page, newest first */
    public static InstanceQuery all() {
        return builder().build();
    }

    /**
     * @param nextCursor a {@link InstancePage#nextCursor()} of a page of this query
     * @return this query, starting after that page
     * @throws NullPointerException when {@code nextCursor} is null (the last page has none)
     */
    public InstanceQuery after(String nextCursor) {
        Objects.requireNonNull(nextCursor, "nextCursor must not be null (the last page has none: there is nothing after it)");
        return new InstanceQuery(fsm, fsmVersion, statuses, queue, step, correlationKey, correlationKeyPrefix,
                concurrencyKey, parentId, insertedFrom, insertedTo, updatedFrom, updatedTo, errorContains, pageSize,
                order, nextCursor);
    }

    /** A builder for {@link InstanceQuery}; validation happens in {@link #build()}. */
    public static final class Builder {
        private String fsm;
        private Integer fsmVersion;
        private Set<Status> statuses;
        private String queue;
        private String step;
        private String correlationKey;
        private String correlationKeyPrefix;
        private String concurrencyKey;
        private Long parentId;
        private Instant insertedFrom;
        private Instant insertedTo;
        private Instant updatedFrom;
        private Instant updatedTo;
        private String errorContains;
        private int pageSize = DEFAULT_PAGE_SIZE;
        private Order order = Order.NEWEST_FIRST;
        private String cursor;

        private Builder() {
        }

        /**
         * @param name the FSM name, as stored ({@link DurableFsm#name()} or the class name)
         * @return this builder
         */
        public Builder fsm(String name) {
            this.fsm = name;
            this.fsmVersion = null;
            return this;
        }

        /**
         * @param name    the FSM name
         * @param version its version, 1 or more
         * @return this builder
         */
        public Builder fsm(String name, int version) {
            this.fsm = name;
            this.fsmVersion = version;
            return this;
        }

        /**
         * @param fsm an FSM or job class: its stored name (any version)
         * @return this builder
         */
        public Builder fsm(Class<? extends Fsm<?>> fsm) {
            Objects.requireNonNull(fsm, "fsm must not be null");
            return fsm(FsmNames.nameOf(fsm));
        }

        /**
         * @param statuses the statuses, any of them; at least one
         * @return this builder
         */
        public Builder status(Status... statuses) {
            Objects.requireNonNull(statuses, "statuses must not be null");
            this.statuses = statuses.length == 0 ? EnumSet.noneOf(Status.class) : new java.util.HashSet<>(Arrays.asList(statuses));
            return this;
        }

        /**
         * @param statuses the statuses, any of them; at least one; null for any
         * @return this builder
         */
        public Builder statuses(Set<Status> statuses) {
            this.statuses = statuses == null ? null : new java.util.HashSet<>(statuses);
            return this;
        }

        /**
         * @param queue the queue
         * @return this builder
         */
        public Builder queue(String queue) {
            this.queue = queue;
            return this;
        }

        /**
         * @param step the current (or, for a finished instance, last) step
         * @return this builder
         */
        public Builder step(String step) {
            this.step = step;
            return this;
        }

        /**
         * @param key the correlation key, exactly (a finished instance's key counts too)
         * @return this builder
         */
        public Builder correlationKey(String key) {
            this.correlationKey = key;
            return this;
        }

        /**
         * @param prefix the start of the correlation key, case-sensitive (e.g. {@code "order:"})
         * @return this builder
         */
        public Builder correlationKeyPrefix(String prefix) {
            this.correlationKeyPrefix = prefix;
            return this;
        }

        /**
         * @param key the concurrency key, exactly
         * @return this builder
         */
        public Builder concurrencyKey(String key) {
            this.concurrencyKey = key;
            return this;
        }

        /**
         * @param parentId a parent's id: its children
         * @return this builder
         */
        public Builder parentId(long parentId) {
            this.parentId = parentId;
            return this;
        }

        /**
         * @param from inserted at or after (null: no lower bound)
         * @param to   inserted before (null: no upper bound)
         * @return this builder
         */
        public Builder inserted(Instant from, Instant to) {
            this.insertedFrom = from;
            this.insertedTo = to;
            return this;
        }

        /**
         * @param from last changed at or after (null: no lower bound)
         * @param to   last changed before (null: no upper bound)
         * @return this builder
         */
        public Builder updated(Instant from, Instant to) {
            this.updatedFrom = from;
            this.updatedTo = to;
            return this;
        }

        /**
         * @param text text the last error contains, ignoring case
         * @return this builder
         */
        public Builder errorContains(String text) {
            this.errorContains = text;
            return this;
        }

        /**
         * @param size the most instances a page holds, 1 to {@value InstanceQuery#MAX_PAGE_SIZE}
         * @return this builder
         */
        public Builder pageSize(int size) {
            this.pageSize = size;
            return this;
        }

        /**
         * @param order newest or oldest first
         * @return this builder
         */
        public Builder order(Order order) {
            this.order = Objects.requireNonNull(order, "order must not be null; accepted: " + Arrays.toString(Order.values()));
            return this;
        }

        /**
         * @param cursor a {@link InstancePage#nextCursor()} of an earlier page of the same order
         * @return this builder
         */
        public Builder after(String cursor) {
            this.cursor = cursor;
            return this;
        }

        /**
         * @return the query
         * @throws IllegalArgumentException naming the field and what it accepts
         */
        public InstanceQuery build() {
            return new InstanceQuery(fsm, fsmVersion, statuses, queue, step, correlationKey, correlationKeyPrefix,
                    concurrencyKey, parentId, insertedFrom, insertedTo, updatedFrom, updatedTo, errorContains, pageSize,
                    order, cursor);
        }
    }
}
