package io.gendurable.impl.db;

import java.time.Instant;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * One column of an {@code unnest(…)} input, declared once: its name in the {@code AS x(…)} list,
 * its SQL array type, and how a row gives its value. A list of them ({@link Unnest}) renders the
 * clause and binds one array per column, so adding a column to a batched statement is one line.
 *
 * @param name    the column's name in the {@code AS x(…)} list
 * @param type    its SQL type (the array parameter is cast to {@code type[]})
 * @param getter  the row's value (boxed; null is SQL NULL); ignored for the {@linkplain #ordinal ordinal}
 * @param isOrdinal whether the value is the row's position in the batch instead of a getter's
 * @param primitive for a column that is never null: a {@link ToLongFunction}, {@link ToIntFunction} or
 *                  {@link Predicate} giving the value unboxed, bound as a primitive array (no boxing); else null
 * @param <R>     the row type
 */
public record UnnestColumn<R>(String name, SqlType type, Function<? super R, ?> getter, boolean isOrdinal,
                              Object primitive) {

    /**
     * @param name      the column's name in the {@code AS x(…)} list
     * @param type      its SQL type
     * @param getter    the row's value, boxed
     * @param isOrdinal whether the value is the row's position in the batch
     */
    public UnnestColumn(String name, SqlType type, Function<? super R, ?> getter, boolean isOrdinal) {
        this(name, type, getter, isOrdinal, null);
    }

    /** The SQL types a column can have: the cast in the statement, the JDBC array's type and element class. */
    public enum SqlType {
        BIGINT("bigint", "bigint"),
        INT("int", "integer"),
        TEXT("text", "text"),
        BOOLEAN("boolean", "boolean"),
        FLOAT8("float8", "float8");

        private final String cast;
        private final String jdbcName;

        SqlType(String cast, String jdbcName) {
            this.cast = cast;
            this.jdbcName = jdbcName;
        }

        /** @return the type as the statement casts the parameter: {@code ?::cast[]} */
        public String cast() {
            return cast;
        }

        /** @return the element type name given to {@link java.sql.Connection#createArrayOf} */
        public String jdbcName() {
            return jdbcName;
        }

        /** @return an array of {@code n} elements of this type's Java class (what the driver encodes natively) */
        Object[] newArray(int n) {
            return switch (this) {
                case BIGINT -> new Long[n];
                case INT -> new Integer[n];
                case TEXT -> new String[n];
                case BOOLEAN -> new Boolean[n];
                case FLOAT8 -> new Double[n];
            };
        }
    }

    /** A {@code bigint} column. */
    public static <R> UnnestColumn<R> bigint(String name, Function<? super R, Long> getter) {
        return new UnnestColumn<>(name, SqlType.BIGINT, getter, false);
    }

    /** A {@code bigint} column that is never null, bound as a {@code long[]} (no boxing). */
    public static <R> UnnestColumn<R> bigintNotNull(String name, ToLongFunction<? super R> getter) {
        return new UnnestColumn<>(name, SqlType.BIGINT, r -> getter.applyAsLong(r), false, getter);
    }

    /** An {@code int} column that is never null, bound as an {@code int[]} (no boxing). */
    public static <R> UnnestColumn<R> int4NotNull(String name, ToIntFunction<? super R> getter) {
        return new UnnestColumn<>(name, SqlType.INT, r -> getter.applyAsInt(r), false, getter);
    }

    /** A {@code boolean} column that is never null, bound as a {@code boolean[]} (no boxing). */
    public static <R> UnnestColumn<R> boolNotNull(String name, Predicate<? super R> getter) {
        return new UnnestColumn<>(name, SqlType.BOOLEAN, r -> getter.test(r), false, getter);
    }

    /**
     * An instant as microseconds since the epoch ({@code bigint}; null stays NULL): the statement
     * turns it into a {@code timestamptz} with {@link Unnest#timestamp}. Cheaper to bind than
     * ISO-8601 text (no formatting, a fixed-size binary element).
     */
    public static <R> UnnestColumn<R> micros(String name, Function<? super R, Instant> getter) {
        return new UnnestColumn<R>(name, SqlType.BIGINT, r -> {
            Instant t = getter.apply(r);
            return t == null ? null : Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
        }, false);
    }

    /** An {@code int} column. */
    public static <R> UnnestColumn<R> int4(String name, Function<? super R, Integer> getter) {
        return new UnnestColumn<>(name, SqlType.INT, getter, false);
    }

    /** A {@code text} column. */
    public static <R> UnnestColumn<R> text(String name, Function<? super R, String> getter) {
        return new UnnestColumn<>(name, SqlType.TEXT, getter, false);
    }

    /** A {@code boolean} column. */
    public static <R> UnnestColumn<R> bool(String name, Function<? super R, Boolean> getter) {
        return new UnnestColumn<>(name, SqlType.BOOLEAN, getter, false);
    }

    /** A {@code float8} column. */
    public static <R> UnnestColumn<R> float8(String name, Function<? super R, Double> getter) {
        return new UnnestColumn<>(name, SqlType.FLOAT8, getter, false);
    }

    /**
     * An instant, carried as ISO-8601 {@code text} and cast to {@code timestamptz} by the statement
     * where it is used (never a local time; see {@link Jdbc#isoOrNull}).
     */
    public static <R> UnnestColumn<R> instant(String name, Function<? super R, Instant> getter) {
        return new UnnestColumn<R>(name, SqlType.TEXT, r -> Jdbc.isoOrNull(getter.apply(r)), false);
    }

    /** An enum constant's {@link Enum#name() name}, as {@code text} (null stays NULL). */
    public static <R> UnnestColumn<R> enumName(String name, Function<? super R, ? extends Enum<?>> getter) {
        return new UnnestColumn<R>(name, SqlType.TEXT, r -> {
            Enum<?> e = getter.apply(r);
            return e == null ? null : e.name();
        }, false);
    }

    /** The row's position in the batch ({@code 0, 1, …}), as {@code int}: answers map back to their input by it. */
    public static <R> UnnestColumn<R> ordinal(String name) {
        return new UnnestColumn<>(name, SqlType.INT, null, true);
    }
}
