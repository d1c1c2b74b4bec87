package dev.agentauth.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.agentauth.spring.autoconfigure.AgentAuthAutoConfiguration;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The starter is laid out as Spring's own: the types an application uses at run time know nothing
 * of Spring Boot or of the auto-configuration; the auto-configuration shows only its class; the
 * properties are apart from both.
 */
class PackageLayoutTest {

  private static final String RUNTIME = "dev.agentauth.spring";
  private static final String AUTOCONFIGURE = RUNTIME + ".autoconfigure";
  private static final String PROPERTIES = AUTOCONFIGURE + ".properties";

  private static JavaClasses starter;

  @BeforeAll
  static void importTheStarter() throws Exception {
    starter =
        new ClassFileImporter()
            .importPath(
                Path.of(
                    AgentAuthAutoConfiguration.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI()));
  }

  @Test
  void theRuntimeTypesDependNeitherOnSpringBootNorOnTheAutoConfiguration() {
    noClasses()
        .that()
        .resideInAPackage(RUNTIME)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(AUTOCONFIGURE + "..", "org.springframework.boot..")
        .check(starter);
  }

  @Test
  void thePropertiesDependOnNothingOfTheStarterButThemselves() {
    noClasses()
        .that()
        .resideInAPackage(PROPERTIES)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(RUNTIME, AUTOCONFIGURE)
        .check(starter);
  }

  @Test
  void theAutoConfigurationPackageShowsOnlyTheAutoConfiguration() {
    classes()
        .that()
        .resideInAPackage(AUTOCONFIGURE)
        .and()
        .areTopLevelClasses()
        .and()
        .doNotHaveSimpleName("package-info")
        .and()
        .haveModifier(JavaModifier.PUBLIC)
        .should()
        .haveSimpleName(AgentAuthAutoConfiguration.class.getSimpleName())
        .check(starter);
  }
}
