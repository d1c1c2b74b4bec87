package dev.agentauth.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.GuardDecision;
import dev.agentauth.mcp.UserIdSource;
import dev.agentauth.server.AgentAuthServer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;

/**
 * The ChatClient side: tool callbacks guarded by {@link AgentAuthToolCallbacks}, checked against
 * the embedded reference server, user id from the ToolContext.
 */
class GuardedToolCallbackIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static AgentAuthServer server;
  private static AgentAuthClient client;
  private static AgentAuthToolCallbacks callbacks;
  private static final List<GuardDecision> decisions = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() {
    server = AgentAuthServer.builder().port(0).build().start();
    client = AgentAuthClient.builder().baseUrl(server.baseUrl()).apiKey(server.apiKey()).build();
    client
        .authorizations()
        .create(
            AuthorizationCreateParams.inline()
                .userId("alice")
                .agentId("chat-bot")
                .scope("crm.read")
                .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                .build());
    ToolScopes scopes = new ToolScopes(Map.of("lookup_customer", "crm.read"), "");
    AgentAuthToolGuard guard =
        AgentAuthToolGuard.builder()
            .client(client)
            .userIdSource(UserIdSource.transportContext(AuthenticatedUserExtractor.USER_ID_KEY))
            .scopeMapper(scopes)
            .authorizationResolver(
                new ActiveGrantResolver(client, "chat-bot", scopes, Duration.ofSeconds(5)))
            .listener(decisions::add)
            .build();
    callbacks = new AgentAuthToolCallbacks(guard, "user_id");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void anAllowedCallRunsTheToolWithItsInputAndContext() {
    RecordingToolCallback tool = new RecordingToolCallback("lookup_customer");
    ToolContext context = new ToolContext(Map.of("user_id", "alice", "tenant", "t1"));

    String out = callbacks.guard(tool).call("{\"id\":\"c1\"}", context);

    assertThat(out).isEqualTo("{\"customer\":\"ACME\"}");
    assertThat(tool.input.get()).isEqualTo("{\"id\":\"c1\"}");
    assertThat(tool.context.get()).isSameAs(context);
    GuardDecision d = decisions.get(decisions.size() - 1);
    assertThat(d.userId()).isEqualTo("alice");
    assertThat(d.scope()).isEqualTo("crm.read");
    assertThat(d.allowed()).isTrue();
  }

  @Test
  void aDenialReachesTheModelAsTheToolResultAndTheToolDoesNotRun() throws Exception {
    RecordingToolCallback tool = new RecordingToolCallback("delete_customer");

    String out =
        callbacks.guard(tool).call("{\"id\":\"c1\"}", new ToolContext(Map.of("user_id", "alice")));

    JsonNode d = JSON.readTree(out);
    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("scope_not_authorized");
    assertThat(d.path("receipt_id").asText()).isNotBlank();
    assertThat(tool.input.get()).isNull();
  }

  @Test
  void withoutAUserInTheToolContextTheCallIsDeniedLocally() throws Exception {
    RecordingToolCallback tool = new RecordingToolCallback("lookup_customer");

    JsonNode noContext = JSON.readTree(callbacks.guard(tool).call("{}"));
    JsonNode otherUser =
        JSON.readTree(
            callbacks.guard(tool).call("{}", new ToolContext(Map.of("user_id", "mallory"))));

    assertThat(noContext.path("reason").asText()).isEqualTo("missing_user_id");
    assertThat(noContext.path("local").asBoolean()).isTrue();
    assertThat(otherUser.path("reason").asText()).isEqualTo("authorization_not_found");
    assertThat(tool.input.get()).isNull();
  }

  @Test
  void providersAndArraysAreGuardedOnceAndKeepTheirDefinitions() {
    RecordingToolCallback tool = new RecordingToolCallback("lookup_customer");
    ToolCallbackProvider provider = () -> new ToolCallback[] {tool};

    ToolCallback[] guarded = callbacks.guard(provider).getToolCallbacks();

    assertThat(guarded).hasSize(1);
    assertThat(guarded[0]).isInstanceOf(GuardedToolCallback.class);
    assertThat(guarded[0].getToolDefinition()).isEqualTo(tool.getToolDefinition());
    assertThat(callbacks.guard(guarded[0])).isSameAs(guarded[0]);
    assertThat(((GuardedToolCallback) guarded[0]).delegate()).isSameAs(tool);
  }
}
