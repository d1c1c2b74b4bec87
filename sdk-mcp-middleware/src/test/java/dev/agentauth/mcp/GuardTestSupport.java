package dev.agentauth.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.AgentAuthClient;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import reactor.core.publisher.Mono;

/**
 * The guard's decorator called directly, with a MockWebServer standing in for the service: a client
 * without retries pointed at it, tools that record whether (and on which thread) they ran, and a
 * listener recording every decision.
 */
abstract class GuardTestSupport {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String API_KEY = "sk_test_mcp_guard";
  static final String RECEIPT_ID = "01JDQ0000000000000000000AA";

  MockWebServer server;
  AgentAuthClient client;
  final List<GuardDecision> decisions = new CopyOnWriteArrayList<>();
  final List<String> toolThreads = new CopyOnWriteArrayList<>();

  @BeforeEach
  void startServer() throws IOException {
    server = new MockWebServer();
    server.start();
    client = clientBuilder().build();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  AgentAuthClient.Builder clientBuilder() {
    return AgentAuthClient.builder()
        .baseUrl(server.url("/"))
        .apiKey(API_KEY)
        .maxRetries(0)
        .okHttpClient(new OkHttpClient.Builder().retryOnConnectionFailure(false).build());
  }

  /** A guard reading the user_id argument and resolving every user to {@code auth_1}. */
  AgentAuthToolGuard.Builder guard() {
    return AgentAuthToolGuard.builder()
        .client(client)
        .userIdSource(UserIdSource.argument())
        .authorizationResolver((userId, tool, args) -> Optional.of("auth_1"))
        .listener(decisions::add);
  }

  static Map<String, Object> userIdSchema() {
    return Map.of(
        "type",
        "object",
        "properties",
        Map.of("user_id", Map.of("type", "string"), "to", Map.of("type", "string")),
        "required",
        List.of("user_id"));
  }

  static Tool tool(String name) {
    return Tool.builder().name(name).inputSchema(userIdSchema()).build();
  }

  static Tool toolWithOutputSchema(String name) {
    return Tool.builder()
        .name(name)
        .inputSchema(userIdSchema())
        .outputSchema(
            Map.of(
                "type",
                "object",
                "properties",
                Map.of("sent", Map.of("type", "boolean")),
                "required",
                List.of("sent")))
        .build();
  }

  SyncToolSpecification syncTool(Tool tool) {
    return SyncToolSpecification.builder()
        .tool(tool)
        .callHandler(
            (exchange, request) -> {
              toolThreads.add(Thread.currentThread().getName());
              return CallToolResult.builder().addTextContent("ran " + tool.name()).build();
            })
        .build();
  }

  SyncToolSpecification syncTool(String name) {
    return syncTool(tool(name));
  }

  AsyncToolSpecification asyncTool(String name) {
    return AsyncToolSpecification.builder()
        .tool(tool(name))
        .callHandler(
            (exchange, request) ->
                Mono.fromSupplier(
                    () -> {
                      toolThreads.add(Thread.currentThread().getName());
                      return CallToolResult.builder().addTextContent("ran " + name).build();
                    }))
        .build();
  }

  static McpAsyncServerExchange asyncExchange(McpTransportContext context) {
    return new McpAsyncServerExchange("session-1", null, null, null, context);
  }

  static McpSyncServerExchange exchange(McpTransportContext context) {
    return new McpSyncServerExchange(asyncExchange(context));
  }

  static McpSyncServerExchange exchange() {
    return exchange(McpTransportContext.EMPTY);
  }

  static CallToolRequest request(String tool, Map<String, Object> arguments) {
    return new CallToolRequest(tool, arguments);
  }

  /** Calls the guarded sync tool as the MCP server would, for {@code user_id} {@code u_1}. */
  static CallToolResult call(SyncToolSpecification guarded) {
    return guarded
        .callHandler()
        .apply(exchange(), request(guarded.tool().name(), Map.of("user_id", "u_1")));
  }

  /** Calls the guarded async tool and waits (on the test thread) for its result. */
  static CallToolResult call(AsyncToolSpecification guarded) {
    return guarded
        .callHandler()
        .apply(asyncExchange(McpTransportContext.EMPTY), request(guarded.tool().name(), u1()))
        .block(Duration.ofSeconds(5));
  }

  static Map<String, Object> u1() {
    return Map.of("user_id", "u_1");
  }

  static MockResponse json(int code, String body) {
    return new MockResponse.Builder()
        .code(code)
        .addHeader("Content-Type", "application/json")
        .body(body)
        .build();
  }

  static MockResponse problem(int code, String problemCode) {
    return new MockResponse.Builder()
        .code(code)
        .addHeader("Content-Type", "application/problem+json")
        .body(
            "{\"type\":\"/errors/"
                + problemCode
                + "\",\"title\":\"t\",\"status\":"
                + code
                + ",\"code\":\""
                + problemCode
                + "\",\"request_id\":\"req_1\"}")
        .build();
  }

  /** A 200 check response holding one result, {@code resultJson}, for {@code scope}. */
  static MockResponse checkResponse(String scope, String resultJson) {
    return json(
        200,
        """
        {"authorization_id":"auth_1","user_id":"u_1","agent_id":"bot",
         "authorization_expires_at":"2026-12-01T00:00:00.000Z","policy_version":"2026-11-21.1",
         "results":{"%s":%s}}
        """
            .formatted(scope, resultJson));
  }

  static String receipt() {
    return """
        {"status":"pending","receipt_id":"%s","ready_at_estimate":"2026-11-22T10:00:00.300Z",
         "url":"http://localhost/v1/receipts/%s"}
        """
        .formatted(RECEIPT_ID, RECEIPT_ID);
  }

  static MockResponse allow(String scope) {
    return checkResponse(
        scope,
        "{\"decision\":\"allow\",\"reason\":\"authorization_granted_scope_active\",\"receipt\":"
            + receipt()
            + "}");
  }

  static MockResponse deny(String scope, String reason) {
    return checkResponse(
        scope,
        "{\"decision\":\"deny\",\"reason\":\"" + reason + "\",\"receipt\":" + receipt() + "}");
  }

  static MockResponse confirm(String scope) {
    return checkResponse(
        scope,
        """
        {"decision":"confirm","reason":"scope_requires_user_confirmation","receipt":%s,
         "confirm_nonce":"nonce_1","confirm_expires_at":"2026-11-22T10:05:00.000Z",
         "confirm_prompt_hint":"Send e-mail"}
        """
            .formatted(receipt()));
  }

  static MockResponse escalate(String scope, String target) {
    String to = target == null ? "null" : "\"" + target + "\"";
    String topLevelTo = target == null ? "" : ",\"escalation_to\":" + to;
    return checkResponse(
        scope,
        """
        {"decision":"escalate","reason":"escalation_required","receipt":%s,
         "escalation":{"escalation_id":"esc_1","status":"pending","escalation_to":%s,
           "expires_at":"2026-11-23T10:00:00.000Z"},
         "escalation_id":"esc_1"%s,"escalation_expires_at":"2026-11-23T10:00:00.000Z"}
        """
            .formatted(receipt(), to, topLevelTo));
  }

  /** The body of the next check request the service received. */
  JsonNode takeCheck() throws Exception {
    RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
    if (r == null) {
      throw new AssertionError("expected a check request, none arrived");
    }
    if (!"/v1/check".equals(r.getUrl().encodedPath())) {
      throw new AssertionError("expected POST /v1/check, found " + r.getUrl());
    }
    return JSON.readTree(r.getBody().string(StandardCharsets.UTF_8));
  }

  static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> structured(CallToolResult r) {
    return (Map<String, Object>) r.structuredContent();
  }

  /** The text block parsed, which must equal the structured object. */
  static Map<String, Object> textJson(CallToolResult r) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> m = JSON.readValue(text(r), Map.class);
    return m;
  }

  static <T> AtomicReference<T> ref() {
    return new AtomicReference<>();
  }
}
