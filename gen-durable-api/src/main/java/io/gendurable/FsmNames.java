package io.gendurable;

/** How an FSM class maps to the name stored in its rows. */
public final class FsmNames {
    private FsmNames() {
    }

    /**
     * @param fsm an FSM or job class (a CDI proxy subclass resolves to its bean class)
     * @return {@link DurableFsm#name()} when set, else the class's fully qualified name
     */
    public static String nameOf(Class<?> fsm) {
        Class<?> c = fsm;
        while (c != null && c.getAnnotation(DurableFsm.class) == null && isSynthetic(c)) {
            c = c.getSuperclass();
        }
        if (c == null) {
            c = fsm;
        }
        DurableFsm annotation = c.getAnnotation(DurableFsm.class);
        return annotation == null || annotation.name().isEmpty() ? c.getName() : annotation.name();
    }

    private static boolean isSynthetic(Class<?> c) {
        // Weld and OpenWebBeans proxies: subclasses whose names carry a '$$' marker.
        return c.isSynthetic() || c.getName().contains("$$");
    }
}
