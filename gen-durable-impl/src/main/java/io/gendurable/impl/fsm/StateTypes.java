package io.gendurable.impl.fsm;

import io.gendurable.Fsm;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.util.HashMap;
import java.util.Map;

/** Finds the {@code S} of {@code Fsm<S>} (or {@code A} of {@code Job<A>}) for a bean class. */
final class StateTypes {
    private StateTypes() {
    }

    /** @return the state type, or {@code Object} (a JSON-B map) when it cannot be resolved */
    static Type of(Class<?> beanClass) {
        Type t = resolve(beanClass, new HashMap<>());
        return t == null || t instanceof TypeVariable<?> ? Object.class : t;
    }

    private static Type resolve(Type type, Map<TypeVariable<?>, Type> bindings) {
        Class<?> raw;
        if (type instanceof ParameterizedType p) {
            raw = (Class<?>) p.getRawType();
            TypeVariable<?>[] vars = raw.getTypeParameters();
            Type[] args = p.getActualTypeArguments();
            for (int i = 0; i < vars.length; i++) {
                Type a = args[i];
                bindings.put(vars[i], a instanceof TypeVariable<?> v && bindings.containsKey(v) ? bindings.get(v) : a);
            }
        } else if (type instanceof Class<?> c) {
            raw = c;
        } else {
            return null;
        }
        if (raw == Fsm.class) {
            Type s = raw.getTypeParameters()[0];
            return bindings.getOrDefault((TypeVariable<?>) s, null);
        }
        for (Type i : raw.getGenericInterfaces()) {
            Type found = resolve(i, bindings);
            if (found != null) {
                return found;
            }
        }
        Type sup = raw.getGenericSuperclass();
        return sup == null ? null : resolve(sup, bindings);
    }
}
