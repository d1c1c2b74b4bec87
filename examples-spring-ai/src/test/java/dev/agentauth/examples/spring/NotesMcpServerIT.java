package dev.agentauth.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.spring.MicrometerDecisionListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example Spring Boot MCP server, guarded by the starter from its application.yml alone, driven
 * by the MCP Java SDK client (Jackson 3 binding, as Spring AI's server) against the embedded
 * reference server.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(AgentAuthTestServer.Decisions.class)
class NotesMcpServerIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String ULID = "[0-9A-HJKMNP-TV-Z]{26}";
  private static final List<McpSyncClient> CLIENTS = new CopyOnWriteArrayList<>();

  @DynamicPropertySource
  static void agentAuth(DynamicPropertyRegistry registry) {
    AgentAuthTestServer.register(registry);
  }

  @LocalServerPort int port;
  @Autowired AgentAuthTestServer.DecisionLog log;
  @Autowired MeterRegistry meters;

  @AfterAll
  static void closeClients() {
    CLIENTS.forEach(McpSyncClient::closeGracefully);
  }

  private McpSyncClient client(String token) {
    return McpClients.connect(port, token, CLIENTS);
  }

  private McpSyncClient alice() {
    return client("alice-token");
  }

  private McpSyncClient bob() {
    return client("bob-token");
  }

  private static CallToolResult call(McpSyncClient c, String tool, Map<String, Object> args) {
    return c.callTool(new CallToolRequest(tool, args));
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  private static JsonNode decision(CallToolResult r) throws Exception {
    assertThat(r.isError()).as("isError of %s", r).isTrue();
    JsonNode d = JSON.readTree(text(r));
    JsonNode structured = JSON.valueToTree(r.structuredContent());
    assertThat(structured).isEqualTo(d);
    return d;
  }

  @Test
  void anAuthorizedCallRuns() {
    CallToolResult r = call(alice(), "search_notes", Map.of("query", "bank"));

    assertThat(Boolean.TRUE.equals(r.isError())).isFalse();
    assertThat(text(r)).contains("Call the bank");
    assertThat(log.last().userId()).isEqualTo("alice");
    assertThat(log.last().scope()).isEqualTo("notes.read");
    assertThat(log.last().receiptId()).matches(ULID);
  }

  @Test
  void aCallOutsideTheGrantIsDeniedWithItsReasonAndReceipt() throws Exception {
    // bob's only authorization lacks email.send: the service decides and records the denial.
    JsonNode d = decision(call(bob(), "send_email", Map.of("to", "ada@example.org", "body", "hi")));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("scope_not_authorized");
    assertThat(d.path("receipt_id").asText()).matches(ULID);
  }

  @Test
  void confirmThenApproveTheNonceAndTheRetryRuns() throws Exception {
    McpSyncClient alice = alice();
    Map<String, Object> args = Map.of("to", "ada@example.org", "body", "hi");
    JsonNode d = decision(call(alice, "send_email", args));
    assertThat(d.path("decision").asText()).isEqualTo("confirm");
    assertThat(d.path("confirm_nonce").asText()).isNotBlank();
    assertThat(d.path("confirm_expires_at").asText()).endsWith("Z");

    AgentAuthTestServer.client().confirmations().approve(d.path("confirm_nonce").asText());
    CallToolResult retry = call(alice, "send_email", args);

    assertThat(text(retry)).contains("sent to ada@example.org");
    assertThat(log.last().reason().value()).isEqualTo("authorization_granted_via_confirmation");
  }

  @Test
  void escalateThenResolveAndTheRetryOfThatNoteRunsOnceAndNoOtherNote() throws Exception {
    McpSyncClient alice = alice();
    JsonNode d = decision(call(alice, "delete_note", Map.of("id", "n2")));
    assertThat(d.path("decision").asText()).isEqualTo("escalate");
    assertThat(d.path("escalation_to").asText()).isEqualTo("security");
    assertThat(d.path("escalation_expires_at").asText()).endsWith("Z");

    AgentAuthTestServer.client()
        .escalations()
        .resolve(d.path("escalation_id").asText(), EscalationResolveParams.approve("approver_7"));
    // delete_note is bound to notes:{id} (application.yml): approving n2 does not approve n1.
    JsonNode other = decision(call(alice, "delete_note", Map.of("id", "n1")));
    CallToolResult once = call(alice, "delete_note", Map.of("id", "n2"));
    CallToolResult again = call(alice, "delete_note", Map.of("id", "n2"));

    assertThat(other.path("decision").asText()).isEqualTo("escalate");
    assertThat(other.path("escalation_id").asText()).isNotEqualTo(d.path("escalation_id").asText());
    assertThat(text(once)).contains("deleted n2");
    assertThat(decision(again).path("decision").asText()).isEqualTo("escalate");
  }

  @Test
  void theUserIsTheAuthenticatedOneAndAForgedUserIdArgumentGetsNowhere() {
    McpSyncClient bob = bob();
    call(bob, "search_notes", Map.of("query", "bank"));
    assertThat(log.last().userId()).isEqualTo("bob");
    int decisions = log.decisions.size();

    // bob names alice in an argument: the tool's schema has no user_id, so the MCP server refuses
    // the call before any handler; no decision is made as alice, and nothing is sent.
    CallToolResult r =
        call(bob, "send_email", Map.of("to", "x@example.org", "body", "hi", "user_id", "alice"));

    assertThat(r.isError()).isTrue();
    assertThat(text(r)).contains("user_id");
    assertThat(log.decisions.subList(decisions, log.decisions.size()))
        .noneMatch(d -> "alice".equals(d.userId()));
  }

  @Test
  void aRequestWithoutCredentialsNeverReachesATool() {
    int decisions = log.decisions.size();

    assertThatThrownBy(() -> client(null))
        .hasStackTraceContaining("McpHttpClientTransportAuthorizationException");
    assertThatThrownBy(() -> client("mallory-token"))
        .hasStackTraceContaining("McpHttpClientTransportAuthorizationException");
    assertThat(log.decisions).hasSize(decisions);
  }

  private HttpResponse<String> postInitialize(String authorization) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/mcp"))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                        + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                        + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}"));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aRefusedRequestGetsABearerChallengeAndAProblem() throws Exception {
    HttpResponse<String> none = postInitialize(null);
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(none.headers().allValues("WWW-Authenticate")).containsExactly("Bearer");
    assertThat(none.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    JsonNode problem = JSON.readTree(none.body());
    assertThat(problem.path("status").asInt()).isEqualTo(401);
    assertThat(problem.path("title").asText()).isEqualTo("Unauthorized");
    assertThat(problem.path("detail").asText()).contains("Authorization header is missing");

    HttpResponse<String> unknown = postInitialize("Bearer mallory-token");
    assertThat(unknown.statusCode()).isEqualTo(401);
    assertThat(unknown.headers().allValues("WWW-Authenticate"))
        .containsExactly("Bearer error=\"invalid_token\"");
    assertThat(JSON.readTree(unknown.body()).path("detail").asText())
        .contains("bearer token in the Authorization header is not known");
    assertThat(unknown.body()).doesNotContain("mallory-token");
  }

  @Test
  void aCallAnsweredOnAnAsyncDispatchLogsNoSecurityError(CapturedOutput output) {
    McpSyncClient alice = alice();
    call(alice, "search_notes", Map.of("query", "bank"));
    alice.listTools(); // one more round trip: the first call's ASYNC dispatch has ended by now

    assertThat(output.getAll())
        .doesNotContain("already committed")
        .doesNotContain("AuthorizationDeniedException")
        .doesNotContain(" ERROR ");
  }

  @Test
  void toolsListShowsOnlyAuthorizedToolsAndCreatesNoReceipt() {
    long before = AgentAuthTestServer.receiptCount();

    List<String> alice = names(alice().listTools().tools());
    List<String> bob = names(bob().listTools().tools());

    assertThat(alice).containsExactlyInAnyOrder("search_notes", "send_email", "delete_note");
    assertThat(bob).containsExactly("search_notes");
    assertThat(AgentAuthTestServer.receiptCount()).isEqualTo(before);
  }

  @Test
  void decisionsAreCountedInMicrometer() {
    call(alice(), "search_notes", Map.of("query", "bank"));

    assertThat(
            meters
                .get(MicrometerDecisionListener.DECISIONS)
                .tags("tool", "search_notes", "decision", "allow", "local", "false")
                .counter()
                .count())
        .isGreaterThanOrEqualTo(1.0);
    assertThat(
            meters
                .get(MicrometerDecisionListener.LATENCY)
                .tag("tool", "search_notes")
                .timer()
                .count())
        .isGreaterThanOrEqualTo(1);
  }

  private static List<String> names(List<Tool> tools) {
    return tools.stream().map(Tool::name).toList();
  }
}
