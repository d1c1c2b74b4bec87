package dev.agentauth.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.AgentAuthClient;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The adapter's own parts, with a MockWebServer standing in for the service. */
class LangChain4jToolGuardTest {
  private MockWebServer server;
  private AgentAuthClient client;
  private final List<String> ran = new CopyOnWriteArrayList<>();
  private final ToolExecutor tool =
      (request, memoryId) -> {
        ran.add(request.name());
        return "ran";
      };

  @BeforeEach
  void start() throws IOException {
    server = new MockWebServer();
    server.start();
    client =
        AgentAuthClient.builder()
            .baseUrl(server.url("/"))
            .apiKey("sk_test_l4j")
            .maxRetries(0)
            .okHttpClient(new OkHttpClient.Builder().retryOnConnectionFailure(false).build())
            .build();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static MockResponse result(String scope, String json) {
    return new MockResponse.Builder()
        .code(200)
        .addHeader("Content-Type", "application/json")
        .body(
            """
            {"authorization_id":"auth_1","user_id":"u_1","agent_id":"bot",
             "authorization_expires_at":"2026-12-01T00:00:00.000Z","policy_version":"1",
             "results":{"%s":%s}}
            """
                .formatted(scope, json))
        .build();
  }

  private LangChain4jToolGuard.Builder guard() {
    return LangChain4jToolGuard.builder()
        .client(client)
        .userIdSource(UserIdSource.memoryId())
        .authorizationResolver((u, t, a) -> Optional.of("auth_1"));
  }

  private static ToolExecutionRequest request(String name) {
    return ToolExecutionRequest.builder().id("1").name(name).arguments("{\"id\":\"n1\"}").build();
  }

  @Test
  void theMcpWrapperPreparesEachToolAtItsFirstCall() {
    server.enqueue(
        result(
            "mcp.search",
            "{\"decision\":\"confirm\",\"reason\":\"scope_requires_user_confirmation\","
                + "\"confirm_nonce\":\"n_1\"}"));
    ToolExecutor wrapped =
        guard().scopeMapper(name -> "mcp." + name).build().mcpToolWrapper().apply(tool);

    String confirm = wrapped.execute(request("search"), "u_1");

    assertThat(confirm).contains("\"decision\":\"confirm\"").contains("\"confirm_nonce\":\"n_1\"");
    assertThat(ran).isEmpty();
    assertThatThrownBy(() -> wrapped.execute(request("bad name"), "u_1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("to map to a scope name");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void theSharedDefaultMemoryIdNamesNoUser() {
    ToolExecutor wrapped = guard().build().mcpToolWrapper().apply(tool);

    String result = wrapped.execute(request("search"), "default");

    assertThat(result).contains("\"reason\":\"missing_user_id\"").contains("\"local\":true");
    assertThat(server.getRequestCount()).isZero();
  }

  @Test
  void aFailingApprovalListenerDoesNotChangeTheResult() {
    server.enqueue(
        result(
            "wire",
            "{\"decision\":\"escalate\",\"reason\":\"escalation_required\","
                + "\"escalation_id\":\"esc_1\"}"));
    ToolExecutor wrapped =
        guard()
            .approvalListener(
                r -> {
                  throw new IllegalStateException("queue down");
                })
            .build()
            .mcpToolWrapper()
            .apply(tool);

    ToolExecutionResult r =
        wrapped.executeWithContext(
            request("wire"), InvocationContext.builder().chatMemoryId("u_1").build());

    assertThat(r.isError()).isTrue();
    assertThat(r.resultText()).contains("\"escalation_id\":\"esc_1\"");
    assertThat(r.result()).isInstanceOf(Map.class);
    assertThat(ran).isEmpty();
  }
}
