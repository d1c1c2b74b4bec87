package dev.agentauth.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.server.AgentAuthServer;
import dev.agentauth.spring.autoconfigure.properties.AgentAuthProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Whether the starter's MCP guard asks users in their client: by default from the role of its own
 * API key, looked up on the embedded reference server; the property decides without the lookup.
 */
@ExtendWith(OutputCaptureExtension.class)
class ElicitationDefaultIT {

  private static AgentAuthServer server;
  private static AgentAuthClient admin;

  @BeforeAll
  static void start() {
    server = AgentAuthServer.builder().port(0).build().start();
    admin = AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static AgentAuthClient clientWith(ApiKeyCreateParams params) {
    String key = admin.apiKeys().create(params).apiKey();
    return AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(key).build();
  }

  private static AgentAuthProperties properties(Boolean enabled) {
    AgentAuthProperties p = new AgentAuthProperties();
    p.getMcp().getElicitation().setEnabled(enabled);
    return p;
  }

  @Test
  void onByDefaultWhenTheKeysRoleMayAnswerConfirmations(CapturedOutput output) {
    for (ApiKeyRole role : new ApiKeyRole[] {ApiKeyRole.TOOL_SERVER, ApiKeyRole.APP}) {
      assertThat(
              AgentAuthAutoConfiguration.elicitation(
                  clientWith(ApiKeyCreateParams.of(role)), properties(null)))
          .as(role.value())
          .isTrue();
    }
    assertThat(AgentAuthAutoConfiguration.elicitation(admin, properties(null))).as("full").isTrue();
    assertThat(output).contains("its API key's role tool_server may answer confirmations");
  }

  @Test
  void offByDefaultWhenTheKeysRoleMayNot(CapturedOutput output) {
    for (ApiKeyCreateParams params :
        new ApiKeyCreateParams[] {
          ApiKeyCreateParams.of(ApiKeyRole.AGENT),
          ApiKeyCreateParams.of(ApiKeyRole.AUDITOR),
          ApiKeyCreateParams.approver("appr_1")
        }) {
      assertThat(AgentAuthAutoConfiguration.elicitation(clientWith(params), properties(null)))
          .as(params.toString())
          .isFalse();
    }
    assertThat(output).contains("its API key's role agent may not answer confirmations");
  }

  @Test
  void thePropertyDecidesWithoutLookingTheKeyUp(CapturedOutput output) {
    AgentAuthClient agent = clientWith(ApiKeyCreateParams.of(ApiKeyRole.AGENT));
    AgentAuthClient unreachable =
        AgentAuthClient.builder().baseUrl("http://127.0.0.1:9").apiKey("sk_test_key").build();

    assertThat(AgentAuthAutoConfiguration.elicitation(admin, properties(false))).isFalse();
    assertThat(AgentAuthAutoConfiguration.elicitation(agent, properties(true))).isTrue();
    assertThat(AgentAuthAutoConfiguration.elicitation(unreachable, properties(true))).isTrue();
    assertThat(output).doesNotContain("could not look up");
  }

  @Test
  void aFailedLookupLeavesItOffWithOneWarning(CapturedOutput output) {
    AgentAuthClient unreachable =
        AgentAuthClient.builder().baseUrl("http://127.0.0.1:9").apiKey("sk_test_key").build();
    AgentAuthClient revoked = clientWith(ApiKeyCreateParams.of(ApiKeyRole.TOOL_SERVER));
    admin.apiKeys().revoke(revoked.apiKeys().current().keyId());

    assertThat(AgentAuthAutoConfiguration.elicitation(unreachable, properties(null))).isFalse();
    assertThat(AgentAuthAutoConfiguration.elicitation(revoked, properties(null))).isFalse();
    assertThat(output.getOut().lines().filter(l -> l.contains("could not look up")))
        .hasSize(2)
        .allMatch(l -> l.contains("WARN"));
  }
}
