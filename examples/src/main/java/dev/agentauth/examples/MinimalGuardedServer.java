package dev.agentauth.examples;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.mcp.AgentAuthToolGuard;
import dev.agentauth.mcp.ToolCall;
import dev.agentauth.mcp.UserIdSource;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The complete guarded MCP server of docs/mcp.md ("Complete server"), line for line: Jetty 12
 * (ee10) hosting the MCP Java SDK's streamable-HTTP servlet ({@code /mcp}, async), a context
 * extractor that authenticates each request with a bearer token and puts the user's opaque id into
 * the MCP transport context, one tool ({@code read_calendar}) guarded by {@link
 * AgentAuthToolGuard}, and a sync MCP server. {@code McpDocSnippetsTest} starts it against an
 * embedded reference server and calls it with the MCP SDK client of the same page.
 *
 * <p>{@link GuardedToolServer} serves its HTTP transport with {@link #serve(HttpServlet, String,
 * int)}.
 */
public final class MinimalGuardedServer implements AutoCloseable {

  private final Server jetty;
  private final McpSyncServer mcp;

  private MinimalGuardedServer(Server jetty, McpSyncServer mcp) {
    this.jetty = jetty;
    this.mcp = mcp;
  }

  /**
   * Starts the server.
   *
   * @param agentAuth the client the guard checks calls with
   * @param userIdByToken the bearer tokens this server accepts, each with the opaque user id it
   *     authenticates (standing in for your authentication)
   * @param grants user id → the authorization id that user's calls are checked against
   * @param host the address to listen on
   * @param port the port ({@code 0}: any free port)
   */
  public static MinimalGuardedServer start(
      AgentAuthClient agentAuth,
      Map<String, String> userIdByToken,
      Map<String, String> grants,
      String host,
      int port)
      throws Exception {
    Objects.requireNonNull(agentAuth, "agentAuth");
    Objects.requireNonNull(userIdByToken, "userIdByToken");
    Objects.requireNonNull(grants, "grants");
    // spotless:off
    // @start region="transport"
    HttpServletStreamableServerTransportProvider transport =
        HttpServletStreamableServerTransportProvider.builder()
            .mcpEndpoint("/mcp")
            .contextExtractor(request -> {
              // Runs for every HTTP request. Your authentication goes here: a verified token,
              // a session; never a value the model writes.
              String userId = userIdByToken.get(bearerToken(request));
              return userId == null
                  ? McpTransportContext.EMPTY   // the guard denies: missing_user_id
                  : McpTransportContext.create(Map.of("user_id", userId));
            })
            .build();
    // @end region="transport"

    // @start region="tool"
    Tool readCalendarTool = Tool
        .builder("read_calendar", Map.of(                    // name, JSON schema of the arguments
            "type", "object",
            "properties", Map.of("date", Map.of("type", "string", "format", "date")),
            "required", List.of("date")))
        .description("Reads the user's calendar for one day.")
        .build();
    SyncToolSpecification readCalendar = SyncToolSpecification.builder()
        .tool(readCalendarTool)
        .callHandler((exchange, request) -> CallToolResult.builder()
            .addTextContent("Calendar for " + request.arguments().get("date") + ": 09:30 stand-up")
            .build())
        .build();
    // @end region="tool"

    // @start region="guard"
    AgentAuthToolGuard guard = AgentAuthToolGuard.builder()
        .client(agentAuth)
        .userIdSource(UserIdSource.transportContext("user_id"))   // what the extractor put there
        .authorizationResolver((userId, toolName, arguments) ->
            Optional.ofNullable(grants.get(userId)))              // your lookup: user -> grant
        .sessionIdExtractor(ToolCall::sessionId)                  // MCP session id in receipts
        .build();
    // @end region="guard"

    // @start region="mcp-server"
    McpSyncServer mcp = McpServer.sync(transport)
        .serverInfo("calendar-tools", "1.0.0")
        .capabilities(ServerCapabilities.builder().tools(true).build())
        .tools(guard.wrapAll(readCalendar))           // every tool wrapped, before build()
        .build();
    // @end region="mcp-server"
    // spotless:on
    try {
      return new MinimalGuardedServer(serve(transport, host, port), mcp);
    } catch (Exception | Error e) {
      mcp.close();
      throw e;
    }
  }

  /**
   * Serves {@code transport} (the MCP SDK's streamable-HTTP servlet) at {@code /mcp} on a started
   * Jetty server listening on {@code host:port}.
   *
   * @param transport the transport provider (a servlet)
   * @param host the address to listen on
   * @param port the port ({@code 0}: any free port)
   * @return the started server
   */
  public static Server serve(HttpServlet transport, String host, int port) throws Exception {
    // spotless:off
    // @start region="jetty"
    Server jetty = new Server(new InetSocketAddress(host, port));
    ServletContextHandler context = new ServletContextHandler("/");
    ServletHolder mcpServlet = new ServletHolder(transport);
    mcpServlet.setAsyncSupported(true);   // required: tool calls are answered asynchronously
    context.addServlet(mcpServlet, "/mcp");
    jetty.setHandler(context);
    jetty.start();
    // @end region="jetty"
    // spotless:on
    return jetty;
  }

  // spotless:off
  // @start region="bearer-token"
  /** The bearer token of the request's {@code Authorization} header, or {@code ""} for none. */
  private static String bearerToken(HttpServletRequest request) {
    String authorization = request.getHeader("Authorization");
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return "";
    }
    return authorization.substring(7).strip();
  }
  // @end region="bearer-token"
  // spotless:on

  /** The port Jetty listens on (the chosen one when started with port {@code 0}). */
  public int port() {
    return ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
  }

  /** Stops the MCP server and Jetty. */
  @Override
  public void close() {
    try {
      mcp.closeGracefully();
    } finally {
      try {
        jetty.stop();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while stopping Jetty", e);
      } catch (Exception e) {
        throw new IllegalStateException("could not stop Jetty", e);
      }
    }
  }
}
