package dev.agentauth.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The server's layers (docs/architecture.md): {@code http} → {@code service} → {@code engine} and
 * {@code store}, both over {@code domain}; {@code signing} over {@code store}; no package cycles,
 * and each layer knows only those below it.
 */
class ArchitectureTest {
  private static final String ROOT = "dev.agentauth.server";
  private static JavaClasses server;

  @BeforeAll
  static void importServer() {
    server =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages(ROOT);
  }

  @Test
  void noPackageCycles() {
    // Every package is its own slice (store and store.jdbc too), the root package included.
    slices().matching("dev.agentauth.(**)").should().beFreeOfCycles().check(server);
  }

  @Test
  void theEngineIsPure() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".engine..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            ROOT + ".store..", ROOT + ".service..", ROOT + ".http..", ROOT + ".signing..")
        .check(server);
  }

  @Test
  void theDomainStandsAlone() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".domain..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            ROOT + ".engine..",
            ROOT + ".store..",
            ROOT + ".service..",
            ROOT + ".http..",
            ROOT + ".signing..")
        .check(server);
  }

  @Test
  void theStoreKnowsNothingAboveIt() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".store..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(ROOT + ".service..", ROOT + ".http..", ROOT + ".signing..")
        .check(server);
  }

  @Test
  void onlyHttpKnowsHttp() {
    noClasses()
        .that()
        .resideOutsideOfPackages(ROOT + ".http..", ROOT)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(ROOT + ".http..", "io.javalin..", "jakarta.servlet..")
        .check(server);
  }

  @Test
  void theServiceDoesNotKnowHttp() {
    noClasses()
        .that()
        .resideInAPackage(ROOT + ".service..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage(ROOT + ".http..")
        .check(server);
  }
}
