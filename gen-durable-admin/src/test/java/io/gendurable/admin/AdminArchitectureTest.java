package io.gendurable.admin;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The admin module's shape: its packages and, inside and across them, its top-level classes form no
 * cycle (the class rule is the engine's {@code io.gendurable.impl.ArchitectureTest.noCyclesBetweenImplClasses};
 * a package-level rule cannot see a circle inside one package), and no package holds more than
 * {@value #MAX_CLASSES_PER_PACKAGE} top-level classes.
 */
@AnalyzeClasses(packages = "io.gendurable.admin", importOptions = ImportOption.DoNotIncludeTests.class)
class AdminArchitectureTest {

    static final int MAX_CLASSES_PER_PACKAGE = 15;

    /** Each top-level class, its nested classes folded in, is a slice of its own. No exception. */
    @ArchTest
    static final ArchRule noCyclesBetweenAdminClasses = slices()
            .assignedFrom(topLevelClassesOf("io.gendurable.admin"))
            .should().beFreeOfCycles();

    /** Each package of the module (the root package included) is a slice. */
    @ArchTest
    static final ArchRule noCyclesBetweenAdminPackages = slices()
            .assignedFrom(sliced("io.gendurable.admin", JavaClass::getPackageName, "the packages of "))
            .should().beFreeOfCycles();

    /** A package with more top-level classes than this is doing more than one thing: split it. */
    @ArchTest
    static void noPackageOverFifteenClasses(JavaClasses classes) {
        Map<String, Integer> perPackage = new TreeMap<>();
        for (JavaClass c : classes) {
            if (c.getPackageName().startsWith("io.gendurable.admin") && c.getName().indexOf('$') < 0
                    && !c.getSimpleName().equals("package-info")) {
                perPackage.merge(c.getPackageName(), 1, Integer::sum);
            }
        }
        assertTrue(perPackage.size() > 1, "the module's packages were not found: " + perPackage);
        perPackage.values().removeIf(n -> n <= MAX_CLASSES_PER_PACKAGE);
        assertTrue(perPackage.isEmpty(), "packages over " + MAX_CLASSES_PER_PACKAGE + " top-level classes: " + perPackage);
    }

    private static SliceAssignment topLevelClassesOf(String prefix) {
        return sliced(prefix, AdminArchitectureTest::topLevel, "the top-level classes of ");
    }

    private static SliceAssignment sliced(String prefix, Function<JavaClass, String> slice, String description) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                return c.getPackageName().startsWith(prefix)
                        ? SliceIdentifier.of(slice.apply(c))
                        : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return description + prefix;
            }
        };
    }

    private static String topLevel(JavaClass c) {
        String name = c.getName();
        int nested = name.indexOf('$');
        return nested < 0 ? name : name.substring(0, nested);
    }
}
