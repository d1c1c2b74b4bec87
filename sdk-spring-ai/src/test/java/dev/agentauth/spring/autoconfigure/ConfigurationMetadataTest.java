package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.agentauth.spring.autoconfigure.properties.AgentAuthProperties;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.AnnotatedElement;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;

/**
 * The starter is registered as an auto-configuration, IDEs can complete its properties, and every
 * property it documents is one it reads: in the generated metadata, in docs/spring-ai.md, and in
 * the code.
 */
class ConfigurationMetadataTest {

  /** Every property of the starter, as the metadata names it (a map's entries under its name). */
  private static final Set<String> PROPERTIES =
      Set.of(
          "agentauth.base-url",
          "agentauth.api-key",
          "agentauth.connect-timeout",
          "agentauth.request-timeout",
          "agentauth.check-timeout",
          "agentauth.max-retries",
          "agentauth.allow-insecure-http",
          "agentauth.fallback.mode",
          "agentauth.fallback.scopes",
          "agentauth.mcp.enabled",
          "agentauth.mcp.hide-unauthorized-tools",
          "agentauth.mcp.visibility-cache-ttl",
          "agentauth.mcp.tool-scopes",
          "agentauth.mcp.scope-prefix",
          "agentauth.mcp.agent-id",
          "agentauth.mcp.resolver-cache-ttl",
          "agentauth.mcp.user-id.source",
          "agentauth.mcp.user-id.claim",
          "agentauth.mcp.user-id.argument",
          "agentauth.mcp.elicitation.enabled",
          "agentauth.mcp.elicitation.timeout",
          "agentauth.tools",
          "agentauth.chat.user-id-key");

  /** A row of a table of properties: its property, up to any {@code <key>}. */
  private static final Pattern DOCUMENTED_PROPERTY =
      Pattern.compile("^\\| `(agentauth\\.[a-z0-9.-]+?)(\\.<[a-z]+>[a-z0-9.-]*)?` \\|");

  private static JsonNode metadata() throws IOException {
    try (InputStream in =
        ConfigurationMetadataTest.class.getResourceAsStream(
            "/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("spring-configuration-metadata.json generated at compile time").isNotNull();
      return new ObjectMapper().readTree(in);
    }
  }

  @Test
  void theAutoConfigurationIsRegistered() throws Exception {
    try (InputStream in =
        getClass()
            .getResourceAsStream(
                "/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
      assertThat(in).isNotNull();
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip())
          .isEqualTo(AgentAuthAutoConfiguration.class.getName());
    }
  }

  @Test
  void everyPropertyHasGeneratedMetadataWithADescription() throws Exception {
    List<String> names = new ArrayList<>();
    for (JsonNode p : metadata().path("properties")) {
      names.add(p.path("name").asText());
      assertThat(p.path("description").asText()).as(p.path("name").asText()).isNotBlank();
    }
    assertThat(names).containsExactlyInAnyOrderElementsOf(PROPERTIES);
  }

  @Test
  void thePropertiesTableOfTheDocsListsExactlyTheStartersProperties() throws Exception {
    Path doc = Path.of("").toAbsolutePath().getParent().resolve("docs/spring-ai.md");
    Set<String> documented = new TreeSet<>();
    boolean inSection = false;
    for (String line : Files.readAllLines(doc, StandardCharsets.UTF_8)) {
      if (line.startsWith("## ")) {
        inSection = line.equals("## Properties");
      }
      Matcher m = DOCUMENTED_PROPERTY.matcher(line);
      if (inSection && m.find()) {
        documented.add(m.group(1));
      }
    }
    assertThat(documented).containsExactlyInAnyOrderElementsOf(PROPERTIES);
  }

  /**
   * A property is read when a class of the starter outside the properties package calls its getter,
   * or when a condition of the auto-configuration names it; a property read by nothing would be a
   * setting that does nothing.
   */
  @Test
  void everyPropertyIsReadByTheStarter() throws Exception {
    // The starter's own classes: the module's main output, where the auto-configuration is.
    JavaClasses classes =
        new ClassFileImporter()
            .importPath(
                Path.of(
                    AgentAuthAutoConfiguration.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI()));
    Set<String> conditions = conditionProperties();
    List<String> unread = new ArrayList<>();
    for (JsonNode p : metadata().path("properties")) {
      String name = p.path("name").asText();
      if (conditions.contains(name)) {
        continue;
      }
      JavaClass source = classes.get(p.path("sourceType").asText());
      Optional<JavaMethod> getter = getter(source, name.substring(name.lastIndexOf('.') + 1));
      assertThat(getter).as("the getter of " + name).isPresent();
      boolean read =
          getter.get().getAccessesToSelf().stream()
              .map(JavaAccess::getOriginOwner)
              .anyMatch(
                  owner ->
                      !owner.getPackageName().equals(AgentAuthProperties.class.getPackageName()));
      if (!read) {
        unread.add(name);
      }
    }
    assertThat(unread).as("properties nothing reads").isEmpty();
  }

  @Test
  void everyConditionOnAnAgentAuthPropertyNamesOneOfTheStartersProperties() {
    assertThat(
            conditionProperties().stream()
                .filter(name -> name.startsWith(AgentAuthProperties.PREFIX + ".")))
        .isNotEmpty()
        .isSubsetOf(PROPERTIES);
  }

  /** The properties the auto-configuration's {@code @ConditionalOnProperty}s name. */
  private static Set<String> conditionProperties() {
    List<AnnotatedElement> elements = new ArrayList<>();
    elements.add(AgentAuthAutoConfiguration.class);
    elements.addAll(List.of(AgentAuthAutoConfiguration.class.getDeclaredMethods()));
    for (Class<?> nested : AgentAuthAutoConfiguration.class.getDeclaredClasses()) {
      elements.add(nested);
      elements.addAll(List.of(nested.getDeclaredMethods()));
    }
    Set<String> names = new TreeSet<>();
    for (AnnotatedElement element : elements) {
      MergedAnnotations.from(element).stream(ConditionalOnProperty.class)
          .map(MergedAnnotation::synthesize)
          .forEach(
              c -> {
                String prefix = c.prefix().isEmpty() ? "" : c.prefix() + ".";
                for (String n : c.name().length > 0 ? c.name() : c.value()) {
                  names.add(prefix + n);
                }
              });
    }
    assertThat(names).as("the conditions were found").contains("agentauth.mcp.enabled");
    return names;
  }

  private static Optional<JavaMethod> getter(JavaClass type, String kebabName) {
    StringBuilder camel = new StringBuilder();
    for (String part : kebabName.split("-")) {
      camel.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
    }
    return type.tryGetMethod("get" + camel).or(() -> type.tryGetMethod("is" + camel));
  }
}
