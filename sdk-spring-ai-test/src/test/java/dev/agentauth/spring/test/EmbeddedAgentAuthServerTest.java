package dev.agentauth.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.CheckParams;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.Authorization;
import dev.agentauth.model.Decision;
import dev.agentauth.spring.autoconfigure.AgentAuthAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;

/** One annotation gives a Spring Boot test the embedded server, wired into the starter. */
@SpringBootTest(
    classes = EmbeddedAgentAuthServerTest.App.class,
    properties = {"agentauth.mcp.agent-id=test-bot", "agentauth.api-key=sk_overridden"})
@EmbeddedAgentAuthServer
class EmbeddedAgentAuthServerTest {
  @Autowired EmbeddedAgentAuth agentAuth;
  @Autowired AgentAuthClient starterClient;

  @Value("${agentauth.base-url}")
  String baseUrl;

  @Value("${agentauth.api-key}")
  String apiKey;

  @Test
  void theStarterTalksToTheEmbeddedServerWithAToolServerKey() {
    assertThat(baseUrl).isEqualTo(agentAuth.server().baseUrl()).startsWith("http://127.0.0.1:");
    assertThat(apiKey)
        .isEqualTo(agentAuth.applicationKey().apiKey())
        .isNotEqualTo(agentAuth.server().apiKey());
    assertThat(starterClient.apiKeys().current().role()).isEqualTo(ApiKeyRole.TOOL_SERVER);

    Authorization grant =
        agentAuth
            .adminClient()
            .authorizations()
            .create(agentAuth.grant("alice").scope("notes.read").build());
    assertThat(grant.agentId()).isEqualTo("test-bot");
    assertThat(
            starterClient
                .check(CheckParams.of(grant.authorizationId(), "notes.read"))
                .results()
                .get("notes.read")
                .decision())
        .isEqualTo(Decision.ALLOW);
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(AgentAuthAutoConfiguration.class)
  static class App {}
}
