package io.gendurable.admin;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The admin module's shape: its top-level classes form no cycle (the same rule as the engine's
 * {@code io.gendurable.impl.ArchitectureTest.noCyclesBetweenImplClasses}; a package-level rule cannot
 * see a circle inside one package).
 */
@AnalyzeClasses(packages = "io.gendurable.admin", importOptions = ImportOption.DoNotIncludeTests.class)
class AdminArchitectureTest {

    /** Each top-level class, its nested classes folded in, is a slice of its own. No exception. */
    @ArchTest
    static final ArchRule noCyclesBetweenAdminClasses = slices()
            .assignedFrom(topLevelClassesOf("io.gendurable.admin"))
            .should().beFreeOfCycles();

    private static SliceAssignment topLevelClassesOf(String prefix) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                return c.getPackageName().startsWith(prefix)
                        ? SliceIdentifier.of(topLevel(c))
                        : SliceIdentifier.ignore();
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
}
