package com.example.notes;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.UserIdSource;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A user's MCP tool server: one tool, {@code read_notes}, guarded by agentauth, served over
 * streamable HTTP at {@code /mcp} on Jetty. The caller is the {@value #USER_HEADER} request header
 * (a real server takes it from its authenticated session instead).
 *
 * <p>{@code java com.example.notes.NotesServer PORT} with {@code AGENTAUTH_URL}, {@code
 * AGENTAUTH_API_KEY} and {@code NOTES_GRANTS} ({@code user=auth_...,user2=auth_...}) set.
 */
public final class NotesServer implements AutoCloseable {
  public static final String USER_HEADER = "X-User-Id";
  public static final String TOOL = "read_notes";
  private static final String ENDPOINT = "/mcp";
  private static final String USER_KEY = "user_id";
  private static final Logger log = LoggerFactory.getLogger(NotesServer.class);

  private final Server jetty;
  private final McpSyncServer mcp;
  private final String url;

  private NotesServer(Server jetty, McpSyncServer mcp, String url) {
    this.jetty = jetty;
    this.mcp = mcp;
    this.url = url;
  }

  /**
   * Starts the server on {@code port} (0: any free port) on loopback; {@code grants} maps a user id
   * to the authorization its calls are checked against.
   */
  public static NotesServer start(AgentAuthClient client, Map<String, String> grants, int port)
      throws Exception {
    Map<String, String> byUser = Map.copyOf(grants);
    AgentAuthToolGuard guard =
        AgentAuthToolGuard.builder()
            .client(client)
            .userIdSource(UserIdSource.transportContext(USER_KEY))
            .authorizationResolver(
                (userId, toolName, arguments) -> Optional.ofNullable(byUser.get(userId)))
            .listener(
                d ->
                    log.info(
                        "{} user={} -> {} {}", d.toolName(), d.userId(), d.decision(), d.reason()))
            .build();

    Tool tool =
        Tool.builder(TOOL, Map.of("type", "object", "properties", Map.of()))
            .description("Reads the caller's notes.")
            .build();
    SyncToolSpecification readNotes =
        SyncToolSpecification.builder()
            .tool(tool)
            .callHandler(
                (exchange, request) ->
                    CallToolResult.builder().addTextContent("You have 2 notes.").build())
            .build();

    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .mcpEndpoint(ENDPOINT)
            .contextExtractor(
                request -> {
                  String user = request.getHeader(USER_HEADER);
                  return user == null || user.isBlank()
                      ? McpTransportContext.EMPTY
                      : McpTransportContext.create(Map.of(USER_KEY, user.strip()));
                })
            .build();
    McpSyncServer mcp =
        McpServer.sync(transport)
            .serverInfo("notes", "1.0")
            .capabilities(ServerCapabilities.builder().tools(true).build())
            .tools(guard.wrapAll(readNotes))
            .build();

    Server jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    ServletHolder holder = new ServletHolder(transport);
    holder.setAsyncSupported(true); // the transport answers with server-sent events
    context.addServlet(holder, ENDPOINT);
    jetty.setHandler(context);
    try {
      jetty.start();
    } catch (Exception e) {
      mcp.close();
      throw e;
    }
    return new NotesServer(jetty, mcp, "http://127.0.0.1:" + connector.getLocalPort() + ENDPOINT);
  }

  /** The MCP endpoint, e.g. {@code http://127.0.0.1:8080/mcp}. */
  public String url() {
    return url;
  }

  @Override
  public void close() {
    mcp.closeGracefully();
    try {
      jetty.stop();
    } catch (Exception e) {
      throw new IllegalStateException("stopping Jetty failed", e);
    }
  }

  public static void main(String[] args) throws Exception {
    AgentAuthClient client =
        AgentAuthClient.builder()
            .baseUrl(System.getenv("AGENTAUTH_URL"))
            .apiKey(System.getenv("AGENTAUTH_API_KEY"))
            .build();
    Map<String, String> grants = new HashMap<>();
    for (String grant : System.getenv().getOrDefault("NOTES_GRANTS", "").split(",")) {
      String[] userAndId = grant.split("=", 2);
      if (userAndId.length == 2) {
        grants.put(userAndId[0].strip(), userAndId[1].strip());
      }
    }
    NotesServer server = start(client, grants, args.length > 0 ? Integer.parseInt(args[0]) : 8080);
    log.info("notes MCP server at {}", server.url());
    new CountDownLatch(1).await();
  }
}
