package io.gendurable.impl.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.StringJoiner;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The input of a batched statement: rows of {@code R} as parallel arrays through
 * {@code unnest(?::t1[], ?::t2[], …) AS x(c1, c2, …)}. The columns are declared once
 * ({@link UnnestColumn}); this renders the clause for the statement's text and binds the arrays,
 * in the same order, from a list of rows. Binding fills one array per column (the same arrays a
 * hand-written binding allocates) through the declared getters: no reflection.
 *
 * @param <R> the row type
 */
public final class Unnest<R> {
    private final UnnestColumn<? super R>[] columns;

    private Unnest(UnnestColumn<? super R>[] columns) {
        this.columns = columns.clone();
    }

    /** @return the input made of these columns, in this order (the order of the parameters and of {@code AS x(…)}) */
    @SafeVarargs
    public static <R> Unnest<R> of(UnnestColumn<? super R>... columns) {
        if (columns.length == 0) {
            throw new IllegalArgumentException("an unnest needs at least one column");
        }
        return new Unnest<>(columns);
    }

    /** @return {@code unnest(?::t1[], ?::t2[], …) AS alias(c1, c2, …)}: one parameter per column */
    public String as(String alias) {
        StringJoiner types = new StringJoiner(", ", "unnest(", ")");
        for (UnnestColumn<? super R> col : columns) {
            types.add("?::" + col.type().cast() + "[]");
        }
        return types + "\n    AS " + alias + "(" + names() + ")";
    }

    /**
     * @param microsColumn a column of {@link UnnestColumn#micros} microseconds, qualified as the statement names it
     * @return the SQL expression that turns it into a {@code timestamptz} (NULL stays NULL); exact
     * to the microsecond (a {@code bigint} of microseconds is exact as the {@code float8} factor)
     */
    public static String timestamp(String microsColumn) {
        return "(timestamptz 'epoch' + " + microsColumn + " * interval '1 microsecond')";
    }

    /** @return the column names, comma-separated, in order */
    public String names() {
        StringJoiner names = new StringJoiner(", ");
        for (UnnestColumn<? super R> col : columns) {
            names.add(col.name());
        }
        return names.toString();
    }

    /** @return how many parameters the clause takes (one per column) */
    public int size() {
        return columns.length;
    }

    /**
     * Binds one array per column, in order, at parameters {@code first … first + size() - 1}.
     *
     * @return the next free parameter index
     */
    @SuppressWarnings("unchecked")
    public int bind(Connection c, PreparedStatement ps, int first, List<? extends R> rows) throws SQLException {
        int n = rows.size();
        for (int j = 0; j < columns.length; j++) {
            UnnestColumn<? super R> col = columns[j];
            Object primitive = col.primitive();
            if (primitive != null) {
                // never null: a primitive array, which pgjdbc encodes without boxing (PrimitiveArrays)
                Object values;
                if (primitive instanceof ToLongFunction<?> f) {
                    long[] a = new long[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = ((ToLongFunction<Object>) f).applyAsLong(rows.get(i));
                    }
                    values = a;
                } else if (primitive instanceof ToIntFunction<?> f) {
                    int[] a = new int[n];
                    for (int i = 0; i < n; i++) {
                        a[i] = ((ToIntFunction<Object>) f).applyAsInt(rows.get(i));
                    }
                    values = a;
                } else {
                    boolean[] a = new boolean[n];
                    Predicate<Object> f = (Predicate<Object>) primitive;
                    for (int i = 0; i < n; i++) {
                        a[i] = f.test(rows.get(i));
                    }
                    values = a;
                }
                ps.setArray(first + j, PrimitiveArrays.of(c, col.type().jdbcName(), values));
                continue;
            }
            Object[] values = col.type().newArray(n);
            if (col.isOrdinal()) {
                for (int i = 0; i < n; i++) {
                    values[i] = i;
                }
            } else {
                Function<? super R, ?> getter = col.getter();
                for (int i = 0; i < n; i++) {
                    values[i] = getter.apply(rows.get(i));
                }
            }
            ps.setArray(first + j, c.createArrayOf(col.type().jdbcName(), values));
        }
        return first + columns.length;
    }
}
