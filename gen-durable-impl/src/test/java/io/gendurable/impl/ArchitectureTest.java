package io.gendurable.impl;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's shape: the core is plain Java, only {@code impl.cdi} (and its sub-packages) knows
 * the container, the {@code impl.*} packages and the classes in them form no cycle, and each statement class ({@code *Sql})
 * is run by the code beside it. The API module's own rule is in gen-durable-api
 * ({@code io.gendurable.ApiArchitectureTest}).
 */
@AnalyzeClasses(packages = "io.gendurable", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    /** What a container provides: the core must run without one (unit tests, the test kit, a plain main). */
    private static final String[] CONTAINER = {"jakarta.enterprise..", "jakarta.inject..", "jakarta.ejb..",
            "jakarta.transaction..", "javax.naming..", "org.eclipse.microprofile..", "io.micrometer.."};

    @ArchTest
    static final ArchRule coreImportsNoContainerType = noClasses()
            .that().resideInAPackage("io.gendurable.impl..")
            .and().resideOutsideOfPackage("io.gendurable.impl.cdi..")
            .should().dependOnClassesThat().resideInAnyPackage(CONTAINER)
            .because("the core is plain Java: the container is adapted in impl.cdi only");

    @ArchTest
    static final ArchRule onlyCdiKnowsCdiJndiMicroProfile = noClasses()
            .that().resideInAPackage("io.gendurable.impl..")
            .and().resideOutsideOfPackage("io.gendurable.impl.cdi..")
            .should().dependOnClassesThat().resideInAnyPackage("jakarta.enterprise..", "jakarta.inject..",
                    "javax.naming..", "org.eclipse.microprofile..", "io.micrometer..")
            .because("CDI, JNDI, MicroProfile (Config, Metrics) and Micrometer are adapted in impl.cdi only");

    /**
     * The runtime jar goes into WARs and EARs: the test kit that needs JUnit and the embedded
     * PostgreSQL is gen-durable-testing's ({@code io.gendurable.testing}, compiled into this
     * module's test classes only, so not imported here), and nothing left in the jar may refer
     * to them.
     */
    @ArchTest
    static final ArchRule runtimeJarKnowsNoTestLibrary = noClasses()
            .that().resideInAPackage("io.gendurable..")
            .should().dependOnClassesThat().resideInAnyPackage("org.junit..", "io.zonky..", "com.opentable..")
            .orShould().resideInAPackage("io.gendurable.testing..")
            .because("the test kit is the gen-durable-testing artifact; the runtime jar carries no test library");

    @ArchTest
    static final ArchRule noCyclesBetweenImplPackages = slices()
            .matching("io.gendurable.impl.(*)..")
            .should().beFreeOfCycles();

    /** Nor between nested packages ({@code impl.cdi} and its {@code metrics}, {@code health}, {@code resources}). */
    @ArchTest
    static final ArchRule noCyclesBetweenImplPackagesAtAnyDepth = slices()
            .matching("io.gendurable.impl.(**)")
            .should().beFreeOfCycles();

    /**
     * The container layer's adapters (its metrics backends, health checks and resource look-ups)
     * are used by its wiring ({@code impl.cdi}: the extension and the engine's bean), never the
     * other way round.
     */
    @ArchTest
    static final ArchRule cdiAdaptersKnowNotTheWiring = noClasses()
            .that().resideInAnyPackage("io.gendurable.impl.cdi.metrics..", "io.gendurable.impl.cdi.health..",
                    "io.gendurable.impl.cdi.resources..")
            .should().dependOnClassesThat().resideInAPackage("io.gendurable.impl.cdi")
            .because("impl.cdi wires the adapters of its sub-packages; they know nothing of the wiring");

    /**
     * Nor between classes, inside a package (which the package rule cannot see): each top-level
     * class, its nested classes folded in, is a slice of its own. No exception.
     */
    @ArchTest
    static final ArchRule noCyclesBetweenImplClasses = slices()
            .assignedFrom(topLevelClassesOf("io.gendurable.impl"))
            .should().beFreeOfCycles();

    /**
     * @param prefix a package and its sub-packages
     * @return one slice per top-level class there (a nested class belongs to its top-level class's)
     */
    static com.tngtech.archunit.library.dependencies.SliceAssignment topLevelClassesOf(String prefix) {
        return new com.tngtech.archunit.library.dependencies.SliceAssignment() {
            @Override
            public com.tngtech.archunit.library.dependencies.SliceIdentifier getIdentifierOf(JavaClass c) {
                return c.getPackageName().startsWith(prefix)
                        ? com.tngtech.archunit.library.dependencies.SliceIdentifier.of(topLevel(c))
                        : com.tngtech.archunit.library.dependencies.SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the top-level classes of " + prefix;
            }
        };
    }

    private static String topLevel(JavaClass c) {
        String name = c.getName();
        int nested = name.indexOf('$');
        return nested < 0 ? name : name.substring(0, nested);
    }

    /**
     * Statements run by a package other than their own, until the persistence port of issue 14
     * (item 3) hands them out: origin class → statement classes it uses. Each entry says why;
     * {@link #knownExceptionsStillHold} fails when one is no longer needed, so the list only shrinks.
     * Row records nested in a statement class ({@code InboxSql.SignalRow}, {@code ChildrenSql.ChildRow},
     * {@code InsertSql.Row}, {@code LeaseSql.Reaped}, …) are data, not statements, and are not
     * checked. Invisible here: {@code step.StepRunner} reads {@code LeaseSql.LEASE_EXPIRED}, a
     * compile-time constant that javac copies into it.
     */
    static final Map<String, Set<String>> KNOWN = Map.of(
            // the claim's transaction also loads the inboxes and children of the rows it claimed
            "io.gendurable.impl.claim.Claimer", Set.of("io.gendurable.impl.step.InboxSql",
                    "io.gendurable.impl.flush.ChildrenSql"),
            // the scheduler reclaims its predecessor's leases; its held claims beat the heartbeat
            "io.gendurable.impl.claim.Scheduler", Set.of("io.gendurable.impl.lease.LeaseSql"),
            "io.gendurable.impl.claim.HeldClaims", Set.of("io.gendurable.impl.lease.LeaseSql"),
            // release-plus-credit: the token-guarded release and the gate credit in one transaction
            "io.gendurable.impl.claim.ClaimRelease", Set.of("io.gendurable.impl.lease.LeaseSql",
                    "io.gendurable.impl.admission.BucketSql"),
            // a cancel returns the gate slot and tells the waiting parent in its own transaction, as the flush does
            // (and, cancelling a running K = 1 row, unblocks its key's next row)
            "io.gendurable.impl.control.Controls", Set.of("io.gendurable.impl.admission.BucketSql",
                    "io.gendurable.impl.flush.ChildrenSql", "io.gendurable.impl.keys.KeySql"),
            // the flush's riders: the fan-out's insert, the gate credit and the unblock of the keys its
            // rows left, in the flush's transaction
            "io.gendurable.impl.flush.FlushRiders", Set.of("io.gendurable.impl.insert.InsertSql",
                    "io.gendurable.impl.admission.BucketSql", "io.gendurable.impl.keys.KeySql"));

    @ArchTest
    static final ArchRule engineInternalsAreTheTestKitsDoor = noClasses()
            .that().resideOutsideOfPackages("io.gendurable.impl.engine..", "io.gendurable.testing..")
            .should().dependOnClassesThat().haveFullyQualifiedName("io.gendurable.impl.engine.EngineInternals")
            .because("an engine's services are reached by the test kit only, never by applications or the container adapter");

    /**
     * Services take the engine's context plus a few collaborators of their own. Records, enums
     * private constructors and the configuration catalogue's key declarations ({@code ConfigKey})
     * are data, not services.
     */
    @ArchTest
    static final ArchRule constructorsTakeFewParameters = com.tngtech.archunit.lang.syntax.ArchRuleDefinition.constructors()
            .that().areDeclaredInClassesThat().resideInAPackage("io.gendurable.impl..")
            .and().areDeclaredInClassesThat().areNotRecords()
            .and().areDeclaredInClassesThat().areNotEnums()
            .and().areNotPrivate()
            .and().areDeclaredInClassesThat().resideOutsideOfPackage("io.gendurable.impl.config..")
            .should(new ArchCondition<>("take at most 6 parameters") {
                @Override
                public void check(com.tngtech.archunit.core.domain.JavaConstructor c, ConditionEvents events) {
                    if (c.getRawParameterTypes().size() > 6) {
                        events.add(SimpleConditionEvent.violated(c, c.getFullName() + " takes "
                                + c.getRawParameterTypes().size() + " parameters: hand it the EngineContext"));
                    }
                }
            })
            .because("one EngineContext (config, clock, metrics, events, executors, db, statements) replaces long parameter lists");

    private static final Set<String> SEEN = ConcurrentHashMap.newKeySet();

    @ArchTest
    static final ArchRule statementsStayBesideTheirCode = classes()
            .that().resideInAPackage("io.gendurable.impl..").and().haveSimpleNameEndingWith("Sql")
            .should(beUsedOnlyInTheirPackageOrByTheCompositionRoot())
            .because("a statement is run by the code beside it; only impl.engine (which wires them) and "
                    + "io.gendurable.testing reach into another package's statements");

    private static ArchCondition<JavaClass> beUsedOnlyInTheirPackageOrByTheCompositionRoot() {
        return new ArchCondition<>("be used only in their own package, by impl.engine or by io.gendurable.testing") {
            @Override
            public void check(JavaClass sql, ConditionEvents events) {
                for (Dependency d : sql.getDirectDependenciesToSelf()) {
                    JavaClass origin = d.getOriginClass();
                    String pkg = origin.getPackageName();
                    if (pkg.equals(sql.getPackageName()) || pkg.startsWith("io.gendurable.impl.engine")
                            || pkg.startsWith("io.gendurable.testing")) {
                        continue;
                    }
                    String top = origin.getName().replaceFirst("\\$.*", "");
                    if (KNOWN.getOrDefault(top, Set.of()).contains(sql.getName())) {
                        SEEN.add(top + " -> " + sql.getName());
                        continue;
                    }
                    events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                }
            }
        };
    }

    @ArchTest
    static void knownExceptionsStillHold(JavaClasses classes) {
        statementsStayBesideTheirCode.check(classes);
        Set<String> listed = new TreeSet<>();
        KNOWN.forEach((from, tos) -> tos.forEach(to -> listed.add(from + " -> " + to)));
        assertThat(new TreeSet<>(SEEN)).as("exceptions no longer needed: remove them from KNOWN").isEqualTo(listed);
    }
}
