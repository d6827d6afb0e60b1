package io.gendurable.impl.fsm;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** The FSMs this node can run, by {@code (name, version)}; inserts use each name's newest version. */
public final class FsmRegistry {
    private final Map<String, TreeMap<Integer, FsmDefinition>> byName = new ConcurrentHashMap<>();

    /**
     * @param definition an FSM
     * @throws IllegalStateException when another class already claims its name and version,
     *                               naming both classes
     */
    public synchronized void register(FsmDefinition definition) {
        TreeMap<Integer, FsmDefinition> versions = byName.computeIfAbsent(definition.name(), n -> new TreeMap<>());
        FsmDefinition existing = versions.get(definition.version());
        if (existing != null) {
            throw new IllegalStateException("two FSM beans claim name '" + definition.name() + "' version "
                    + definition.version() + ": " + existing.beanClass().getName() + " and "
                    + definition.beanClass().getName() + "; give one another @DurableFsm(name=…, version=…)");
        }
        versions.put(definition.version(), definition);
    }

    /** @return the definition that runs rows of {@code (name, version)} */
    public Optional<FsmDefinition> find(String name, int version) {
        TreeMap<Integer, FsmDefinition> versions = byName.get(name);
        return versions == null ? Optional.empty() : Optional.ofNullable(versions.get(version));
    }

    /** @return the newest version of {@code name}, used by inserts */
    public Optional<FsmDefinition> newest(String name) {
        TreeMap<Integer, FsmDefinition> versions = byName.get(name);
        return versions == null || versions.isEmpty() ? Optional.empty() : Optional.of(versions.lastEntry().getValue());
    }

    /** @return every registered definition */
    public Collection<FsmDefinition> all() {
        return byName.values().stream().flatMap(m -> m.values().stream()).toList();
    }

    /** @return {@code name v1, name v2, …} for messages */
    public String describe() {
        return all().stream().map(d -> d.name() + " v" + d.version()).sorted().toList().toString();
    }
}
