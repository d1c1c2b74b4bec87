package dev.agentauth.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The starter is registered as an auto-configuration and IDEs can complete its properties. */
class ConfigurationMetadataTest {

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
    JsonNode metadata;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("spring-configuration-metadata.json generated at compile time").isNotNull();
      metadata = new ObjectMapper().readTree(in);
    }
    List<String> names = new ArrayList<>();
    for (JsonNode p : metadata.path("properties")) {
      names.add(p.path("name").asText());
      assertThat(p.path("description").asText()).as(p.path("name").asText()).isNotBlank();
    }
    assertThat(names)
        .contains(
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
            "agentauth.mcp.authorization-resolver",
            "agentauth.mcp.agent-id",
            "agentauth.mcp.resolver-cache-ttl",
            "agentauth.mcp.user-id.source",
            "agentauth.mcp.user-id.claim",
            "agentauth.mcp.user-id.argument",
            "agentauth.mcp.elicitation.enabled",
            "agentauth.mcp.elicitation.timeout",
            "agentauth.tools",
            "agentauth.chat.user-id-key");
  }
}
