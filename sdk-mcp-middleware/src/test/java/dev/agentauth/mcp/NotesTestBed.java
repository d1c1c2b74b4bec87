package dev.agentauth.mcp;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.ApiKeyCreateParams;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.model.ApiKey;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.ScopeConstraints;
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
import io.modelcontextprotocol.spec.McpSchema.ClientCapabilities;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import reactor.core.publisher.Mono;

/**
 * A notes tool server guarded by agentauth (decisions §19), served over streamable HTTP (stateful)
 * by Jetty in front of an embedded reference server; plus MCP SDK clients, with or without an
 * elicitation handler.
 *
 * <ul>
 *   <li>{@code delete_note} ({@code id}): resource template {@code notes:{id}}; requires
 *       confirmation.
 *   <li>{@code read_note} ({@code id}): template {@code notes:{id}}; the grant limits it with
 *       {@code resource_pattern: "notes:*"}.
 *   <li>{@code read_file} ({@code id}): the default digest binding; the grant limits it with {@code
 *       resource_pattern: "notes:*"}, which a digest never matches.
 *   <li>{@code transfer} ({@code to}, {@code amount}): the default digest; requires escalation to
 *       {@code finance}.
 * </ul>
 *
 * <p>{@code /mcp} serves them from a sync server, {@code /mcp-async} from an async one; both from
 * one guard holding a key of the role the test asks for. The user comes from the {@code X-User-Id}
 * header.
 */
final class NotesTestBed implements AutoCloseable {
  static final String USER = "alice";

  final AgentAuthServer agentAuth;
  final AgentAuthClient admin;
  final ApiKey guardKey;
  final String authorizationId;
  final List<GuardDecision> decisions = new CopyOnWriteArrayList<>();
  private final Map<String, String> grants = new ConcurrentHashMap<>();
  private final Server jetty;
  private final McpSyncServer syncServer;
  private final McpAsyncServer asyncServer;
  private final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();
  private final String baseUrl;

  NotesTestBed(ApiKeyRole guardRole, UnaryOperator<AgentAuthToolGuard.Builder> config)
      throws Exception {
    agentAuth = AgentAuthServer.builder().port(0).build().start();
    admin =
        AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
    authorizationId =
        admin
            .authorizations()
            .create(
                AuthorizationCreateParams.inline()
                    .userId(USER)
                    .agentId("notes-bot")
                    .scope("delete_note")
                    .scope(
                        "read_note", ScopeConstraints.builder().resourcePattern("notes:*").build())
                    .scope(
                        "read_file", ScopeConstraints.builder().resourcePattern("notes:*").build())
                    .scope("transfer")
                    .requiresConfirmFor("delete_note")
                    .requiresEscalationFor("transfer")
                    .escalationTarget("transfer", "finance")
                    .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                    .build())
            .authorizationId();
    grants.put(USER, authorizationId);
    guardKey = admin.apiKeys().create(ApiKeyCreateParams.of(guardRole));
    AgentAuthClient guardClient = admin.newBuilder().apiKey(guardKey.apiKey()).build();
    AgentAuthToolGuard guard =
        config
            .apply(
                AgentAuthToolGuard.builder()
                    .client(guardClient)
                    .userIdSource(UserIdSource.transportContext("user_id"))
                    .authorizationResolver(
                        (user, tool, args) -> Optional.ofNullable(grants.get(user)))
                    .resourceBinding("delete_note", ResourceBinding.template("notes:{id}"))
                    .resourceBinding("read_note", ResourceBinding.template("notes:{id}"))
                    .listener(decisions::add))
            .build();

    List<Tool> tools =
        List.of(
            tool("delete_note", "id"),
            tool("read_note", "id"),
            tool("read_file", "id"),
            tool("transfer", "to", "amount"));
    HttpServletStreamableServerTransportProvider syncTransport = transport("/mcp");
    HttpServletStreamableServerTransportProvider asyncTransport = transport("/mcp-async");
    syncServer =
        McpServer.sync(syncTransport)
            .serverInfo("notes-sync", "1.0")
            .capabilities(ServerCapabilities.builder().tools(true).build())
            .tools(
                tools.stream()
                    .map(
                        t ->
                            guard.wrap(
                                SyncToolSpecification.builder()
                                    .tool(t)
                                    .callHandler((exchange, request) -> ran(request))
                                    .build()))
                    .toList())
            .build();
    asyncServer =
        McpServer.async(asyncTransport)
            .serverInfo("notes-async", "1.0")
            .capabilities(ServerCapabilities.builder().tools(true).build())
            .tools(
                tools.stream()
                    .map(
                        t ->
                            guard.wrap(
                                AsyncToolSpecification.builder()
                                    .tool(t)
                                    .callHandler(
                                        (exchange, request) ->
                                            Mono.fromSupplier(() -> ran(request)))
                                    .build()))
                    .toList())
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
    baseUrl = "http://127.0.0.1:" + connector.getLocalPort();
  }

  private static Tool tool(String name, String... properties) {
    Map<String, Object> props = new java.util.LinkedHashMap<>();
    for (String p : properties) {
      props.put(p, Map.of("type", p.equals("amount") ? "integer" : "string"));
    }
    return Tool.builder()
        .name(name)
        .inputSchema(Map.of("type", "object", "properties", props))
        .build();
  }

  private static CallToolResult ran(CallToolRequest request) {
    return CallToolResult.builder()
        .addTextContent(
            "ran " + request.name() + " " + new java.util.TreeMap<>(request.arguments()))
        .build();
  }

  private static HttpServletStreamableServerTransportProvider transport(String endpoint) {
    return HttpServletStreamableServerTransportProvider.builder()
        .mcpEndpoint(endpoint)
        .contextExtractor(
            request -> {
              String user = request.getHeader("X-User-Id");
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

  /**
   * An initialized MCP client of {@code path} for {@link #USER}; with a handler it declares the
   * {@code elicitation} capability and answers with it, without one it declares nothing.
   */
  McpSyncClient client(String path, Function<ElicitFormRequest, ElicitResult> elicitation) {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder(baseUrl)
            .endpoint(path)
            .httpRequestCustomizer(
                (builder, method, uri, body, context) -> builder.header("X-User-Id", USER))
            .build();
    McpClient.SyncSpec spec = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(20));
    if (elicitation != null) {
      spec.capabilities(ClientCapabilities.builder().elicitation().build())
          .elicitation(elicitation);
    }
    McpSyncClient c = spec.build();
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
