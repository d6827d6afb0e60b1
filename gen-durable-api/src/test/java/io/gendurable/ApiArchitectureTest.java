package io.gendurable;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

/**
 * The API depends on nothing of ours and on nothing of a container's but the CDI qualifier
 * annotation ({@link GenDurableDataSource}): the JDK, {@code jakarta.inject} and its own
 * packages. The engine's rules are in gen-durable-impl ({@code io.gendurable.impl.ArchitectureTest}).
 */
@AnalyzeClasses(packages = "io.gendurable", importOptions = ImportOption.DoNotIncludeTests.class)
class ApiArchitectureTest {

    @ArchTest
    static final ArchRule apiDependsOnNothingOfOurs = classes()
            .that().resideInAPackage("io.gendurable..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("io.gendurable", "io.gendurable.events",
                    "java..", "jakarta.inject")
            .because("users compile against the API alone: the engine (io.gendurable.impl..), the test kit "
                    + "(io.gendurable.testing..) and any library stay behind it");
}
