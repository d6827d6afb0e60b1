package io.gendurable.testing;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The test kit's shape, checked on this jar's classes beside gen-durable-impl's (the engine's own
 * rules, in {@code io.gendurable.impl.ArchitectureTest}, see the kit only as test classes there and
 * leave it out): the kit drives the plain-Java engine, never a container, and it is the only
 * place outside {@code impl.engine} that opens {@code EngineInternals}.
 */
@AnalyzeClasses(packages = "io.gendurable", importOptions = ImportOption.DoNotIncludeTests.class)
class KitArchitectureTest {

    @ArchTest
    static final ArchRule kitKnowsNoContainer = noClasses()
            .that().resideInAPackage("io.gendurable.testing..")
            .should().dependOnClassesThat().resideInAnyPackage("jakarta.enterprise..", "jakarta.inject..",
                    "jakarta.ejb..", "jakarta.transaction..", "javax.naming..", "org.eclipse.microprofile..")
            .because("the kit runs the plain-Java engine in a JUnit test, without a container");

    @ArchTest
    static final ArchRule engineInternalsAreTheTestKitsDoor = noClasses()
            .that().resideOutsideOfPackages("io.gendurable.impl.engine..", "io.gendurable.testing..")
            .should().dependOnClassesThat().haveFullyQualifiedName("io.gendurable.impl.engine.EngineInternals")
            .because("an engine's services are reached by the test kit only, never by applications or the container adapter");

    @ArchTest
    static final ArchRule kitIsNotReachedByTheEngine = noClasses()
            .that().resideInAnyPackage("io.gendurable.impl..", "io.gendurable")
            .should().dependOnClassesThat().resideInAPackage("io.gendurable.testing..")
            .because("gen-durable-testing depends on the engine, never the other way round");
}
