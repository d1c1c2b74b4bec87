package dev.agentauth.examples;

import static dev.agentauth.examples.ExampleTestSupport.ULID;
import static dev.agentauth.examples.ExampleTestSupport.allowed;
import static dev.agentauth.examples.ExampleTestSupport.authorize;
import static dev.agentauth.examples.ExampleTestSupport.call;
import static dev.agentauth.examples.ExampleTestSupport.decision;
import static dev.agentauth.examples.ExampleTestSupport.scope;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.model.ReceiptLookup;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import dev.agentauth.server.AgentAuthServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The MCP Java SDK's client drives {@link GuardedToolServer} over stdio, launched as a child
 * process ({@code java -cp <test class path> ... --transport stdio}) against a reference server
 * started here: the caller is the {@code user_id} argument.
 */
class GuardedToolServerStdioIT {
  private static final String ALICE = "user_alice";
  private static final String BOB = "user_bob";

  private static AgentAuthServer agentAuth;
  private static AgentAuthClient client;
  private static McpSyncClient mcp;
  private static final Queue<String> serverLog = new ConcurrentLinkedQueue<>();

  @BeforeAll
  static void start() {
    agentAuth = AgentAuthServer.builder().port(0).build().start();
    client =
        AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
    String alice =
        authorize(
            client,
            ALICE,
            new ScopeEntry("send_email", new ScopeConstraints(3L, null, null)),
            scope("read_calendar"),
            scope("delete_file"));
    String bob = authorize(client, BOB, scope("read_calendar"));

    List<String> command =
        ExampleTestSupport.serverCommand(
            "--transport",
            "stdio",
            "--agentauth-url",
            agentAuth.baseUrl(),
            "--api-key",
            agentAuth.apiKey(),
            "--grant",
            ALICE + "=" + alice,
            "--grant",
            BOB + "=" + bob);
    ServerParameters params =
        ServerParameters.builder(command.get(0)).args(command.subList(1, command.size())).build();
    StdioClientTransport transport = new StdioClientTransport(params, McpJsonDefaults.getMapper());
    transport.setStdErrorHandler(serverLog::add);
    mcp =
        McpClient.sync(transport)
            .requestTimeout(Duration.ofSeconds(20))
            .initializationTimeout(Duration.ofSeconds(30))
            .build();
    mcp.initialize();
  }

  @AfterAll
  static void stop() {
    // The child's standard error, shown only when something went wrong there.
    if (serverLog.stream().anyMatch(l -> l.contains("ERROR") || l.contains("Exception"))) {
      serverLog.forEach(l -> System.err.println("[guarded-tools child] " + l));
    }
    if (mcp != null) {
      mcp.close();
    }
    if (agentAuth != null) {
      agentAuth.close();
    }
  }

  @Test
  void listsTheThreeToolsEachDeclaringTheUserIdArgument() {
    List<Tool> tools = mcp.listTools().tools();

    assertThat(tools)
        .extracting(Tool::name)
        .containsExactlyInAnyOrder("send_email", "read_calendar", "delete_file");
    for (Tool t : tools) {
      assertThat(((Map<?, ?>) t.inputSchema().get("properties")).keySet())
          .map(Object::toString)
          .contains("user_id");
    }
  }

  @Test
  void allowRunsTheTool() {
    String text = allowed(call(mcp, "read_calendar", Map.of("user_id", ALICE)));

    assertThat(text).startsWith("Calendar for ");
  }

  @Test
  void denyIsAnErrorResultWithDecisionReasonAndReceipt() throws Exception {
    JsonNode d =
        decision(
            call(
                mcp,
                "send_email",
                Map.of("user_id", BOB, "to", "ada@example.org", "subject", "x")));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("scope_not_authorized");
    String receiptId = d.path("receipt_id").asText();
    assertThat(receiptId).matches(ULID);
    assertThat(client.receipts().get(receiptId)).isInstanceOf(ReceiptLookup.class);
  }

  @Test
  void sendEmailIsAllowedThreeTimesADay() throws Exception {
    Map<String, Object> args = Map.of("user_id", ALICE, "to", "ada@example.org", "subject", "Hi");
    for (int i = 0; i < 3; i++) {
      assertThat(allowed(call(mcp, "send_email", args)))
          .startsWith("Sent e-mail to ada@example.org");
    }

    JsonNode d = decision(call(mcp, "send_email", args));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("rate_limit_exceeded");
  }

  @Test
  void confirmThenApproveTheNonceAndRetryIsAllowed() throws Exception {
    Map<String, Object> args = Map.of("user_id", ALICE, "path", "/tmp/report-draft.txt");
    JsonNode d = decision(call(mcp, "delete_file", args));
    assertThat(d.path("decision").asText()).isEqualTo("confirm");
    assertThat(d.path("reason").asText()).isEqualTo("scope_requires_user_confirmation");
    assertThat(d.path("confirm_nonce").asText()).isNotBlank();
    assertThat(d.path("confirm_prompt_hint").isTextual()).isTrue();
    assertThat(d.path("receipt_id").asText()).matches(ULID);

    // What the application does after the user clicked "Allow".
    client.confirmations().approve(d.path("confirm_nonce").asText());

    assertThat(allowed(call(mcp, "delete_file", args))).startsWith("Deleted /tmp/report-draft.txt");
  }

  @Test
  void aCallWithoutUserIdIsDeniedLocally() throws Exception {
    JsonNode d = decision(call(mcp, "read_calendar", Map.of()));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("missing_user_id");
    assertThat(d.path("local").asBoolean()).isTrue();
    assertThat(d.has("receipt_id")).isFalse();
  }

  @Test
  void aUserWithoutAGrantIsDeniedLocally() throws Exception {
    JsonNode d = decision(call(mcp, "read_calendar", Map.of("user_id", "user_mallory")));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("authorization_not_found");
    assertThat(d.path("local").asBoolean()).isTrue();
    assertThat(d.has("receipt_id")).isFalse();
  }
}
