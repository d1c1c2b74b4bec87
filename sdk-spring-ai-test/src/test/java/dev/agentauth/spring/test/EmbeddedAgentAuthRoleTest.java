package dev.agentauth.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.model.ApiKeyRole;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * {@code agentauth.test.api-key-role} chooses the application's key; the application name is the
 * agent.
 */
@SpringBootTest(
    classes = EmbeddedAgentAuthServerTest.App.class,
    properties = {"spring.application.name=agent-app", "agentauth.test.api-key-role=agent"})
@EmbeddedAgentAuthServer
class EmbeddedAgentAuthRoleTest {
  @Autowired EmbeddedAgentAuth agentAuth;
  @Autowired AgentAuthClient starterClient;

  @Test
  void theRolePropertyChoosesTheKeyAndTheApplicationNameIsTheAgent() {
    assertThat(starterClient.apiKeys().current().role()).isEqualTo(ApiKeyRole.AGENT);
    assertThat(agentAuth.grant("bob").scope("x").build().body().agentId()).isEqualTo("agent-app");
  }
}
