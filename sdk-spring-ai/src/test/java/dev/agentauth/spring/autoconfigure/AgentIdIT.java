package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.spring.AgentAuthToolCallbacks;
import dev.agentauth.spring.RecordingToolCallback;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Against the embedded reference server: alice granted {@code email.send} only to {@code
 * payments_bot}, so the notes server's {@code send_email} never runs under that grant, whether its
 * agent id is set or comes from {@code spring.application.name}.
 */
class AgentIdIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static AgentAuthServer server;
  private static ApplicationContextRunner runner;

  @BeforeAll
  static void start() {
    server = AgentAuthServer.builder().port(0).build().start();
    AgentAuthClient admin =
        AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
    admin
        .authorizations()
        .create(
            AuthorizationCreateParams.inline()
                .userId("alice")
                .agentId("payments_bot")
                .scope("email.send")
                .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                .build());
    runner =
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AgentAuthAutoConfiguration.class))
            .withPropertyValues(
                "agentauth.base-url=" + server.baseUrl(),
                "agentauth.api-key=" + server.apiKey(),
                "agentauth.mcp.tool-scopes.send_email=email.send");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void theApplicationNameAsAgentIdDoesNotUseAGrantToAnotherAgent() {
    runner
        .withPropertyValues("spring.application.name=notes-server")
        .run(
            ctx -> {
              RecordingToolCallback sendEmail = new RecordingToolCallback("send_email");

              JsonNode decision =
                  JSON.readTree(
                      ctx.getBean(AgentAuthToolCallbacks.class)
                          .guard(sendEmail)
                          .call("{}", new ToolContext(Map.of("user_id", "alice"))));

              assertThat(sendEmail.input.get()).as("send_email ran").isNull();
              assertThat(decision.path("decision").asText()).isEqualTo("deny");
              assertThat(decision.path("reason").asText()).isEqualTo("authorization_not_found");
            });
  }

  @Test
  void theAgentTheGrantNamesRunsTheTool() {
    runner
        .withPropertyValues(
            "spring.application.name=notes-server", "agentauth.mcp.agent-id=payments_bot")
        .run(
            ctx -> {
              RecordingToolCallback sendEmail = new RecordingToolCallback("send_email");

              ctx.getBean(AgentAuthToolCallbacks.class)
                  .guard(sendEmail)
                  .call("{\"to\":\"bob\"}", new ToolContext(Map.of("user_id", "alice")));

              assertThat(sendEmail.input.get()).isEqualTo("{\"to\":\"bob\"}");
            });
  }
}
