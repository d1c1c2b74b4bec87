package dev.agentauth.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.examples.MinimalGuardedServer;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.AuthorizationResolver;
import dev.agentauth.mcp.GuardDecision;
import dev.agentauth.mcp.ResourceBinding;
import dev.agentauth.mcp.UserIdSource;
import dev.agentauth.server.AgentAuthServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/**
 * The Java of docs/mcp.md, run. Each region is the twin of a fence (see {@link DocSnippetsTest});
 * the server regions live in {@link MinimalGuardedServer}.
 */
class McpDocSnippetsTest {

  private static final String KEY_SHAPE = "sk_" + "a".repeat(43);
  private static final String ALICE = "user_alice";
  private static final String BOB = "user_bob";
  private static final String CAROL = "user_carol";

  @Test
  void completeServerAllowsDeniesAndAsksForConfirmation() throws Exception {
    try (AgentAuthServer agentAuthServer = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient agentAuth =
          AgentAuthClient.builder()
              .baseUrl(agentAuthServer.baseUrl())
              .apiKey(agentAuthServer.apiKey())
              .build();
      Map<String, String> grants =
          Map.of(
              ALICE, authorize(agentAuth, ALICE, "read_calendar", false),
              BOB, authorize(agentAuth, BOB, "send_email", false),
              CAROL, authorize(agentAuth, CAROL, "read_calendar", true));
      Map<String, String> tokens =
          Map.of("tok_alice", ALICE, "tok_bob", BOB, "tok_carol", CAROL, "tok_dave", "user_dave");
      try (MinimalGuardedServer server =
          MinimalGuardedServer.start(agentAuth, tokens, grants, "127.0.0.1", 0)) {
        String url = "http://127.0.0.1:" + server.port();

        assertThat(readCalendar(url, "tok_alice"))
            .isEqualTo("Calendar for 2026-11-23: 09:30 stand-up");
        assertThat(readCalendar(url, "tok_bob")).isEqualTo("deny: scope_not_authorized");
        assertThat(readCalendar(url, "tok_carol"))
            .isEqualTo("confirm: scope_requires_user_confirmation");
        assertThat(readCalendar(url, "tok_dave")).isEqualTo("deny: authorization_not_found");
        assertThat(readCalendar(url, "not-a-token")).isEqualTo("deny: missing_user_id");
      }
    }
  }

  /** The client of docs/mcp.md: calls {@code read_calendar} with {@code token}. */
  // spotless:off
  // @start region="client"
  static String readCalendar(String mcpServerUrl, String token) {   // e.g. "https://tools.example.com"
    HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
        .builder(mcpServerUrl)
        .endpoint("/mcp")
        .httpRequestCustomizer((request, method, uri, body, context) ->
            request.header("Authorization", "Bearer " + token))   // on every HTTP request
        .build();
    try (McpSyncClient mcp = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(10)).build()) {
      mcp.initialize();
      CallToolResult result =
          mcp.callTool(new CallToolRequest("read_calendar", Map.of("date", "2026-11-23")));
      if (!Boolean.TRUE.equals(result.isError())) {
        return ((TextContent) result.content().get(0)).text();   // allow: the tool's own result
      }
      // Refused: the decision object, e.g. {"decision":"confirm","reason":"...","confirm_nonce":...}
      Map<?, ?> decision = (Map<?, ?>) result.structuredContent();
      return decision.get("decision") + ": " + decision.get("reason");
    }
  }
  // @end region="client"
  // spotless:on

  private static String authorize(
      AgentAuthClient client, String user, String scope, boolean confirm) {
    AuthorizationCreateParams.InlineBuilder b =
        AuthorizationCreateParams.inline()
            .userId(user)
            .agentId("calendar_agent")
            .scope(scope)
            .expiresAt(Instant.now().plus(Duration.ofDays(1)));
    if (confirm) {
      b.requiresConfirmFor(scope);
    }
    return client.authorizations().create(b.build()).authorizationId();
  }

  /**
   * The symptom docs/mcp.md names for a servlet registered without async support (the default of
   * web.xml, {@code @WebServlet} and Tomcat's {@code addServlet}; Jetty 12's programmatic {@code
   * ServletHolder} happens to default to async): initialize works, every tool call answers HTTP 500
   * with the SDK's serialized exception, stack trace included.
   */
  @Test
  void withoutAsyncSupportToolCallsFailWithHttp500() throws Exception {
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder().mcpEndpoint("/mcp").build();
    McpSyncServer mcp =
        McpServer.sync(transport)
            .serverInfo("no-async", "1.0.0")
            .capabilities(ServerCapabilities.builder().tools(true).build())
            .tools(echoTool("ping_tool"))
            .build();
    Server jetty = new Server(new InetSocketAddress("127.0.0.1", 0));
    ServletContextHandler context = new ServletContextHandler("/");
    ServletHolder holder = new ServletHolder(transport);
    assertThat(holder.isAsyncSupported()).as("Jetty 12's programmatic default").isTrue();
    holder.setAsyncSupported(false);
    context.addServlet(holder, "/mcp");
    jetty.setHandler(context);
    jetty.start();
    try {
      URI url =
          URI.create(
              "http://127.0.0.1:"
                  + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort()
                  + "/mcp");
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> init =
          post(
              http,
              url,
              null,
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                  + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                  + "\"clientInfo\":{\"name\":\"probe\",\"version\":\"1\"}}}");
      assertThat(init.statusCode()).isEqualTo(200);
      String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();

      HttpResponse<String> call =
          post(
              http,
              url,
              session,
              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
                  + "\"params\":{\"name\":\"ping_tool\",\"arguments\":{}}}");

      assertThat(call.statusCode()).isEqualTo(500);
      assertThat(call.body())
          .contains("\"stackTrace\":[")
          .contains("\"message\":\"Error processing message: Async Not Supported\"");
    } finally {
      mcp.close();
      jetty.stop();
    }
  }

  private static HttpResponse<String> post(HttpClient http, URI url, String session, String body)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(url)
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The "Set up" overview of docs/mcp.md, built and called once. */
  @Test
  void setUpOverview() throws Exception {
    try (AgentAuthServer agentAuthServer = AgentAuthServer.builder().port(0).build().start()) {
      AgentAuthClient admin =
          AgentAuthClient.builder()
              .baseUrl(agentAuthServer.baseUrl())
              .apiKey(agentAuthServer.apiKey())
              .build();
      String aliceGrant = authorize(admin, ALICE, "read_inbox", false);
      Grants grants = (user, agent) -> ALICE.equals(user) ? aliceGrant : null;
      Metrics metrics = new Metrics();
      HttpServletStreamableServerTransportProvider transportProvider =
          HttpServletStreamableServerTransportProvider.builder()
              .mcpEndpoint("/mcp")
              .contextExtractor(
                  request ->
                      request.getHeader("X-User-Id") == null
                          ? McpTransportContext.EMPTY
                          : McpTransportContext.create(
                              Map.of("user_id", request.getHeader("X-User-Id"))))
              .build();
      SyncToolSpecification sendEmail = echoTool("send_email");
      SyncToolSpecification readInbox = echoTool("read_inbox");
      SyncToolSpecification deleteMailbox = echoTool("delete_mailbox");

      // spotless:off
      // @start region="setup"
      AgentAuthClient agentAuth = AgentAuthClient.builder()
          .baseUrl(agentAuthServer.baseUrl()) // @replace substring="agentAuthServer.baseUrl()" replacement='"https://agentauth.example.com"'
          .apiKey(agentAuthServer.apiKey()) // @replace substring="agentAuthServer.apiKey()" replacement='System.getenv("AGENTAUTH_API_KEY")'
          .build();

      AgentAuthToolGuard guard = AgentAuthToolGuard.builder()
          .client(agentAuth)
          .userIdSource(UserIdSource.transportContext("user_id"))          // who calls: see below
          .authorizationResolver((userId, toolName, arguments) ->
              Optional.ofNullable(grants.authorizationFor(userId, "support-bot")))
          .resourceExtractor(call -> call.stringArgument("mailbox"))        // optional; model-written,
                                                                             // so never fail_open (below)
          .contextExtractor(call -> Map.of("initiated_by", "agent"))        // optional
          .listener(d -> metrics.record(d))                                  // optional
          .build();

      McpSyncServer server = McpServer.sync(transportProvider)
          .serverInfo("support-tools", "1.0")
          .capabilities(ServerCapabilities.builder().tools(true).build())
          .tools(guard.wrapAll(sendEmail, readInbox, deleteMailbox))
          .build();
      // @end region="setup"
      // spotless:on

      Server jetty = MinimalGuardedServer.serve(transportProvider, "127.0.0.1", 0);
      try {
        String url =
            "http://127.0.0.1:" + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
        try (McpSyncClient client =
            McpClient.sync(
                    HttpClientStreamableHttpTransport.builder(url)
                        .endpoint("/mcp")
                        .httpRequestCustomizer(
                            (request, method, uri, body, context) ->
                                request.header("X-User-Id", ALICE))
                        .build())
                .requestTimeout(Duration.ofSeconds(10))
                .build()) {
          client.initialize();
          CallToolResult inbox =
              client.callTool(new CallToolRequest("read_inbox", Map.of("mailbox", "alice")));
          CallToolResult delete =
              client.callTool(new CallToolRequest("delete_mailbox", Map.of("mailbox", "alice")));

          assertThat(inbox.isError()).isNotEqualTo(Boolean.TRUE);
          assertThat(delete.isError()).isTrue();
          assertThat(metrics.decisions)
              .extracting(d -> d.toolName() + " " + d.decision().value())
              .containsExactly("read_inbox allow", "delete_mailbox deny");
        }
      } finally {
        server.close();
        jetty.stop();
      }
    }
  }

  /** Stands in for the application's store of grants. */
  @FunctionalInterface
  private interface Grants {
    String authorizationFor(String userId, String agentId);
  }

  /** Stands in for the application's metrics. */
  private static final class Metrics {
    final List<GuardDecision> decisions = new CopyOnWriteArrayList<>();

    void record(GuardDecision d) {
      decisions.add(d);
    }
  }

  @Test
  void toolSchemaDeclaresTheUserIdArgument() throws Exception {
    // spotless:off
    // @start region="tool-schema"
    Tool sendEmail = Tool
        .builder("send_email", Map.of(
            "type", "object",
            "properties", Map.of(
                "user_id", Map.of("type", "string", "description", "Opaque id of the user"),
                "to", Map.of("type", "string")),
            "required", List.of("user_id", "to")))
        .build();
    // @end region="tool-schema"
    // spotless:on
    AgentAuthToolGuard.Builder guard =
        AgentAuthToolGuard.builder()
            .client(AgentAuthClient.builder().baseUrl("http://127.0.0.1:9").apiKey("k").build())
            .authorizationResolver((user, tool, args) -> Optional.empty());
    AgentAuthToolGuard fromArgument = guard.userIdSource(UserIdSource.argument()).build();
    SyncToolSpecification wrapped = fromArgument.wrap(echo(sendEmail));

    CallToolResult noGrant =
        wrapped
            .callHandler()
            .apply(
                exchange(McpTransportContext.EMPTY),
                new CallToolRequest("send_email", Map.of("user_id", "u_1", "to", "a@b.c")));
    // The denial, and a message for the model beside it.
    Map<Object, Object> denial = new HashMap<>((Map<?, ?>) noGrant.structuredContent());
    assertThat((String) denial.remove("message")).isNotBlank();
    assertThat(denial)
        .isEqualTo(Map.of("decision", "deny", "reason", "authorization_not_found", "local", true));

    Tool closed =
        Tool.builder(
                "send_email",
                Map.of(
                    "type",
                    "object",
                    "properties",
                    Map.of("to", Map.of("type", "string")),
                    "additionalProperties",
                    false))
            .build();
    assertThatThrownBy(() -> fromArgument.wrap(echo(closed)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("additionalProperties: false");
  }

  @Test
  void listenerFeedsATimer() {
    MeterRegistry meterRegistry = new SimpleMeterRegistry();
    AgentAuthToolGuard guard =
        AgentAuthToolGuard.builder()
            .client(AgentAuthClient.builder().baseUrl("http://127.0.0.1:9").apiKey("k").build())
            .userIdSource(UserIdSource.transportContext("user_id"))
            .authorizationResolver((user, tool, args) -> Optional.empty())
            // spotless:off
            // @start region="listener"
            .listener(d -> meterRegistry
                .timer("agentauth.guard", "tool", d.toolName(), "decision", d.decision().value(),
                    "reason", d.reason().value())
                .record(d.latency()))
            // @end region="listener"
            // spotless:on
            .build();

    guard
        .wrap(echoTool("read_inbox"))
        .callHandler()
        .apply(exchange(McpTransportContext.EMPTY), new CallToolRequest("read_inbox", Map.of()));

    Timer timer =
        meterRegistry
            .find("agentauth.guard")
            .tags("tool", "read_inbox", "decision", "deny", "reason", "missing_user_id")
            .timer();
    assertThat(timer).isNotNull();
    assertThat(timer.count()).isEqualTo(1);
  }

  private static McpSyncServerExchange exchange(McpTransportContext context) {
    return new McpSyncServerExchange(
        new McpAsyncServerExchange("session-1", null, null, null, context, null));
  }

  /** The "What an approval covers" and "Asking the user in their client" guards of docs/mcp.md. */
  @Test
  void bindingAndElicitationGuardsWrapTheirTools() {
    AgentAuthClient agentAuth =
        AgentAuthClient.builder().baseUrl("http://127.0.0.1:9").apiKey(KEY_SHAPE).build();
    AgentAuthClient toolServerClient = agentAuth;
    AuthorizationResolver resolver = (userId, toolName, arguments) -> Optional.empty();
    SyncToolSpecification deleteNote =
        echo(
            Tool.builder()
                .name("delete_note")
                .inputSchema(
                    Map.of("type", "object", "properties", Map.of("id", Map.of("type", "string"))))
                .build());
    SyncToolSpecification listNotes = echoTool("list_notes");

    // spotless:off
    // @start region="binding"
    AgentAuthToolGuard guard = AgentAuthToolGuard.builder()
        .client(agentAuth)
        .userIdSource(UserIdSource.transportContext("user_id"))
        .authorizationResolver(resolver)
        .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
        .resourceBinding("list_notes", ResourceBinding.unbound())   // widens every approval: below
        .build();
    // @end region="binding"

    // @start region="elicitation"
    AgentAuthToolGuard asking = AgentAuthToolGuard.builder() // @replace substring="asking" replacement="guard"
        .client(toolServerClient)                   // a key of role tool_server (below)
        .userIdSource(UserIdSource.transportContext("user_id"))
        .authorizationResolver(resolver)
        .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
        .elicitation(true)
        .confirmationTimeout(Duration.ofMinutes(2)) // the default
        .build();
    // @end region="elicitation"
    // spotless:on

    assertThat(guard.wrapAll(deleteNote, listNotes)).hasSize(2);
    assertThat(asking.wrap(deleteNote).tool().name()).isEqualTo("delete_note");
    // The template's placeholder must be an argument of the tool it binds.
    AgentAuthToolGuard wrong =
        AgentAuthToolGuard.builder()
            .client(agentAuth)
            .userIdSource(UserIdSource.transportContext("user_id"))
            .authorizationResolver(resolver)
            .resourceBinding("list_notes", ResourceBinding.template("notes:{id}"))
            .build();
    assertThatThrownBy(() -> wrong.wrap(listNotes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id");
  }

  private static SyncToolSpecification echoTool(String name) {
    return echo(
        Tool.builder()
            .name(name)
            .inputSchema(Map.of("type", "object", "properties", Map.of()))
            .build());
  }

  private static SyncToolSpecification echo(Tool tool) {
    return SyncToolSpecification.builder()
        .tool(tool)
        .callHandler(
            (exchange, request) ->
                CallToolResult.builder().addTextContent("ran " + tool.name()).build())
        .build();
  }
}
