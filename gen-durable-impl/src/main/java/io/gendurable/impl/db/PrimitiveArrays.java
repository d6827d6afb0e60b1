package io.gendurable.impl.db;

import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.PGConnection;

/**
 * SQL arrays from Java primitive arrays ({@code long[]}, {@code int[]}, {@code boolean[]}).
 * pgjdbc encodes those without boxing, but only through its own {@code PGConnection}; an
 * application server's pool wraps a driver that lives in the server's class loader (Open Liberty's
 * {@code <library>}, a WildFly module), whose {@code PGConnection} is not the one this class sees,
 * and refuses the unwrap. There the values are boxed and go through the standard
 * {@link Connection#createArrayOf}: the same SQL array, a few more allocations.
 */
public final class PrimitiveArrays {
    private PrimitiveArrays() {
    }

    /**
     * @param c     a connection, the driver's own or a pool's wrapper
     * @param type  the element type ({@code bigint}, {@code integer}, {@code boolean})
     * @param array a {@code long[]}, {@code int[]} or {@code boolean[]}
     * @return the SQL array
     */
    public static Array of(Connection c, String type, Object array) throws SQLException {
        if (Pg.VISIBLE && c.isWrapperFor(PGConnection.class)) {
            return Pg.of(c, type, array);
        }
        return c.createArrayOf(type, boxed(array));
    }

    static Object[] boxed(Object array) {
        if (array instanceof long[] a) {
            Long[] out = new Long[a.length];
            for (int i = 0; i < a.length; i++) {
                out[i] = a[i];
            }
            return out;
        }
        if (array instanceof int[] a) {
            Integer[] out = new Integer[a.length];
            for (int i = 0; i < a.length; i++) {
                out[i] = a[i];
            }
            return out;
        }
        if (array instanceof boolean[] a) {
            Boolean[] out = new Boolean[a.length];
            for (int i = 0; i < a.length; i++) {
                out[i] = a[i];
            }
            return out;
        }
        throw new IllegalArgumentException("array must be a long[], int[] or boolean[], got " + array.getClass().getName());
    }

    /** The only class here that needs pgjdbc's classes: loaded when they are visible. */
    private static final class Pg {
        static final boolean VISIBLE = visible();

        private static boolean visible() {
            try {
                Class.forName("org.postgresql.PGConnection", false, PrimitiveArrays.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }

        static Array of(Connection c, String type, Object array) throws SQLException {
            return c.unwrap(PGConnection.class).createArrayOf(type, array);
        }
    }
}
