package dev.agentauth.mcp;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.FallbackPolicy;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.server.AgentAuthServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.AsyncToolSpecification;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import reactor.core.publisher.Mono;

/**
 * A small MCP tool server with guarded tools, served over streamable HTTP by Jetty, in front of an
 * embedded agentauth reference server; plus MCP SDK clients to call it.
 *
 * <p>The transport puts the {@code X-User-Id} header into the MCP transport context (standing in
 * for an authenticated HTTP session). Endpoints:
 *
 * <ul>
 *   <li>{@code /mcp}: a sync MCP server. Tools {@code read_inbox} (authorized), {@code
 *       delete_mailbox} (not authorized), {@code send_email} (requires confirmation; resource is
 *       the {@code to} argument), {@code wire_money} (requires escalation to {@code security}),
 *       {@code export_report} (not authorized, declares an output schema): user from the transport
 *       context. {@code lookup_order}: user from the {@code user_id} argument. {@code down_closed},
 *       {@code down_open}, {@code down_disabled}: a client pointed at a closed port with each
 *       fallback mode.
 *   <li>{@code /mcp-async}: an async MCP server with {@code read_inbox}, {@code delete_mailbox},
 *       {@code send_email}, checked against another authorization of the same user.
 * </ul>
 */
final class McpTestBed implements AutoCloseable {
  static final String USER = "user_1";
  static final String HEADER = "X-User-Id";

  final AgentAuthServer agentAuth;
  final AgentAuthClient client;
  final String authorizationId;
  final String asyncAuthorizationId;
  final Map<String, String> grants = new ConcurrentHashMap<>();
  final List<GuardDecision> decisions = new CopyOnWriteArrayList<>();
  private final Server jetty;
  private final McpSyncServer syncServer;
  private final McpAsyncServer asyncServer;
  private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();
  private final String mcpBaseUrl;

  McpTestBed() throws Exception {
    agentAuth = AgentAuthServer.builder().port(0).build().start();
    client =
        AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
    authorizationId = authorize("read_inbox", "send_email", "wire_money", "lookup_order");
    asyncAuthorizationId = authorize("read_inbox", "send_email");
    grants.put(USER, authorizationId);
    // The guards hold what a tool server should: an agent key, which can check and read but
    // never grant, confirm or approve (decisions.md §15). Setup uses the full key.
    AgentAuthClient agentClient =
        client
            .newBuilder()
            .apiKey(client.apiKeys().create(ApiKeyCreateParams.of(ApiKeyRole.AGENT)).apiKey())
            .build();

    AgentAuthToolGuard fromContext =
        guard(agentClient).userIdSource(UserIdSource.transportContext("user_id")).build();
    AgentAuthToolGuard fromArgument =
        guard(agentClient).userIdSource(UserIdSource.argument()).build();
    AgentAuthClient dead = deadClient();
    List<SyncToolSpecification> tools = new ArrayList<>();
    tools.addAll(
        fromContext.wrapAll(
            syncTool(tool("read_inbox")),
            syncTool(tool("delete_mailbox")),
            syncTool(tool("send_email")),
            syncTool(tool("wire_money")),
            syncTool(reportTool())));
    tools.add(fromArgument.wrap(syncTool(tool("lookup_order"))));
    tools.add(whoami());
    tools.add(downGuard(dead, FallbackPolicy.failClosed()).wrap(syncTool(tool("down_closed"))));
    tools.add(
        downGuard(dead, FallbackPolicy.failClosed().withFailOpen("down_open"))
            .wrap(syncTool(tool("down_open"))));
    tools.add(downGuard(dead, FallbackPolicy.disabled()).wrap(syncTool(tool("down_disabled"))));

    AgentAuthToolGuard asyncGuard =
        guard(agentClient)
            .userIdSource(UserIdSource.transportContext("user_id"))
            .authorizationResolver(
                (user, tool, args) ->
                    USER.equals(user) ? Optional.of(asyncAuthorizationId) : Optional.empty())
            .build();
    List<AsyncToolSpecification> asyncTools =
        asyncGuard.wrapAll(
            asyncTool(tool("read_inbox")),
            asyncTool(tool("delete_mailbox")),
            asyncTool(tool("send_email")));

    HttpServletStreamableServerTransportProvider syncTransport = transport("/mcp");
    HttpServletStreamableServerTransportProvider asyncTransport = transport("/mcp-async");
    syncServer =
        McpServer.sync(syncTransport)
            .serverInfo("guarded-sync", "1.0")
            .capabilities(ServerCapabilities.builder().tools(true).build())
            .tools(tools)
            .build();
    asyncServer =
        McpServer.async(asyncTransport)
            .serverInfo("guarded-async", "1.0")
            .capabilities(ServerCapabilities.builder().tools(true).build())
            .tools(asyncTools)
            .build();

    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addServlet(servlet(syncTransport), "/mcp");
    context.addServlet(servlet(asyncTransport), "/mcp-async");
    jetty.setHandler(context);
    jetty.start();
    mcpBaseUrl = "http://127.0.0.1:" + connector.getLocalPort();
  }

  private String authorize(String... scopes) {
    AuthorizationCreateParams.InlineBuilder b =
        AuthorizationCreateParams.inline()
            .userId(USER)
            .agentId("mcp-bot")
            .requiresConfirmFor("send_email")
            .expiresAt(Instant.now().plus(Duration.ofDays(1)));
    for (String s : scopes) {
      b.scope(s);
    }
    if (List.of(scopes).contains("wire_money")) {
      b.requiresEscalationFor("wire_money").escalationTarget("wire_money", "security");
    }
    return client.authorizations().create(b.build()).authorizationId();
  }

  private AgentAuthToolGuard.Builder guard(AgentAuthClient c) {
    return AgentAuthToolGuard.builder()
        .client(c)
        .authorizationResolver((user, tool, args) -> Optional.ofNullable(grants.get(user)))
        .resourceExtractor(call -> call.stringArgument("to"))
        .contextExtractor(call -> Map.of("initiated_by", "agent"))
        .listener(decisions::add);
  }

  private AgentAuthToolGuard downGuard(AgentAuthClient dead, FallbackPolicy policy) {
    return AgentAuthToolGuard.builder()
        .client(dead.newBuilder().fallback(policy).build())
        .userIdSource(UserIdSource.transportContext("user_id"))
        .authorizationResolver((user, tool, args) -> Optional.of("auth_unreachable"))
        .listener(decisions::add)
        .build();
  }

  /** A client of a loopback port nobody listens on: every check fails to connect, at once. */
  private static AgentAuthClient deadClient() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    return AgentAuthClient.builder()
        .baseUrl("http://127.0.0.1:" + port)
        .apiKey("sk_unreachable")
        .maxRetries(0)
        .build();
  }

  private static HttpServletStreamableServerTransportProvider transport(String endpoint) {
    return HttpServletStreamableServerTransportProvider.builder()
        .mcpEndpoint(endpoint)
        .contextExtractor(
            request -> {
              String user = request.getHeader(HEADER);
              return user == null
                  ? McpTransportContext.EMPTY
                  : McpTransportContext.create(Map.of("user_id", user));
            })
        .build();
  }

  private static ServletHolder servlet(HttpServletStreamableServerTransportProvider transport) {
    ServletHolder holder = new ServletHolder(transport);
    holder.setAsyncSupported(true);
    return holder;
  }

  static Tool tool(String name) {
    return Tool.builder()
        .name(name)
        .inputSchema(
            Map.of(
                "type",
                "object",
                "properties",
                Map.of("user_id", Map.of("type", "string"), "to", Map.of("type", "string"))))
        .build();
  }

  private static Tool reportTool() {
    return Tool.builder()
        .name("export_report")
        .inputSchema(Map.of("type", "object", "properties", Map.of()))
        .outputSchema(
            Map.of(
                "type",
                "object",
                "properties",
                Map.of("rows", Map.of("type", "integer")),
                "required",
                List.of("rows")))
        .build();
  }

  private static SyncToolSpecification syncTool(Tool tool) {
    return SyncToolSpecification.builder()
        .tool(tool)
        .callHandler((exchange, request) -> ran(tool))
        .build();
  }

  private static AsyncToolSpecification asyncTool(Tool tool) {
    return AsyncToolSpecification.builder()
        .tool(tool)
        .callHandler((exchange, request) -> Mono.fromSupplier(() -> ran(tool)))
        .build();
  }

  /**
   * An unguarded tool answering "MCP_SESSION_ID USER_ID": the session of the call and the user its
   * HTTP request's transport context names ("-" for none).
   */
  private static SyncToolSpecification whoami() {
    return SyncToolSpecification.builder()
        .tool(Tool.builder("whoami", Map.of("type", "object")).build())
        .callHandler(
            (exchange, request) -> {
              Object user = exchange.transportContext().get("user_id");
              return CallToolResult.builder()
                  .addTextContent(exchange.sessionId() + " " + (user == null ? "-" : user))
                  .build();
            })
        .build();
  }

  private static CallToolResult ran(Tool tool) {
    CallToolResult.Builder b = CallToolResult.builder().addTextContent("ran " + tool.name());
    if (tool.outputSchema() != null) {
      b.structuredContent(Map.of("rows", 3));
    }
    return b.build();
  }

  /** An initialized MCP client of {@code path} whose requests carry {@code X-User-Id: user}. */
  McpSyncClient mcpClient(String path, String user) {
    return mcpClientPerRequest(path, () -> user);
  }

  /**
   * An initialized MCP client of {@code path}; each of its HTTP requests carries {@code X-User-Id}
   * with what {@code user} supplies at that moment (none when it supplies null).
   */
  McpSyncClient mcpClientPerRequest(String path, Supplier<String> user) {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(mcpBaseUrl)
            .endpoint(path)
            .httpRequestCustomizer(
                (builder, method, uri, body, context) -> {
                  String u = user.get();
                  if (u != null) {
                    builder.header(HEADER, u);
                  }
                })
            .build();
    McpSyncClient c = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(10)).build();
    clients.add(c);
    c.initialize();
    return c;
  }

  static CallToolResult call(McpSyncClient c, String tool, Map<String, Object> arguments) {
    return c.callTool(new CallToolRequest(tool, arguments));
  }

  GuardDecision lastDecision() {
    return decisions.get(decisions.size() - 1);
  }

  @Override
  public void close() throws Exception {
    for (McpSyncClient c : clients) {
      c.close();
    }
    syncServer.close();
    asyncServer.close();
    jetty.stop();
    agentAuth.close();
  }
}
