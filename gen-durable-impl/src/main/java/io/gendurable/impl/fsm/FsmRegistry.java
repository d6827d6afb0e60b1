package io.gendurable.impl.fsm;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** The FSMs this node can run, by {@code (name, version)}; inserts use each name's newest version. */
public final class FsmRegistry {
    private final Map<String, TreeMap<Integer, FsmDefinition>> byName = new ConcurrentHashMap<>();
    /** {@link #claimKeys()}, rebuilt on each registration (registrations happen at start; claims read it often). */
    private volatile String[] claimKeys = new String[0];

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
        claimKeys = all().stream().map(d -> claimKey(d.name(), d.version())).sorted().toArray(String[]::new);
    }

    /**
     * The {@code (fsm, version)} pairs this node runs, as the claims compare them with a row
     * ({@code fsm || ':' || fsm_version = ANY (…)}): a node never claims a row it has no
     * definition for, so a row written by a newer version waits for a node that has it.
     *
     * @return {@code name:version} of every registered definition (shared: do not modify)
     */
    public String[] claimKeys() {
        return claimKeys;
    }

    /**
     * @param name    an FSM's name
     * @param version its version
     * @return the key {@link #claimKeys()} holds for it (unambiguous: the version is the digits after the last colon)
     */
    public static String claimKey(String name, int version) {
        return name + ':' + version;
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
