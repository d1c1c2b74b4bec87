package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.agentauth.client.AgentAuthClient;
import dev.agentauth.client.AuthorizationCreateParams;
import dev.agentauth.client.ReceiptListParams;
import dev.agentauth.server.AgentAuthServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpStatelessAsyncServer;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStatelessServerTransport;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.StreamSupport;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Tool hiding end to end (decisions §17), on the Jackson 2 binding: a sync streamable-HTTP server
 * with {@code addToolFilter(guard.toolFilter())} and a stateless async server with {@code
 * addToolFilter(guard.toolFilter().async())}, behind Jetty, against the embedded reference server.
 * A user sees exactly the tools their active authorization grants; a hidden tool is still checked
 * when called; listing creates no receipt.
 */
class ToolHidingIT {
  private static final String HEADER = "X-User-Id";

  private static AgentAuthServer agentAuth;
  private static AgentAuthClient client;
  private static Server jetty;
  private static McpSyncServer syncServer;
  private static McpStatelessAsyncServer statelessServer;
  private static String baseUrl;
  private static final Map<String, String> grants = new ConcurrentHashMap<>();
  private static final List<McpSyncClient> clients = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    agentAuth = AgentAuthServer.builder().port(0).build().start();
    client =
        AgentAuthClient.builder().baseUrl(agentAuth.baseUrl()).apiKey(agentAuth.apiKey()).build();
    grants.put(
        "alice",
        client
            .authorizations()
            .create(
                AuthorizationCreateParams.inline()
                    .userId("alice")
                    .agentId("bot")
                    .scope("read_inbox")
                    .expiresAt(Instant.now().plus(Duration.ofDays(1)))
                    .build())
            .authorizationId());

    AgentAuthToolGuard guard =
        AgentAuthToolGuard.builder()
            .client(client)
            .userIdSource(UserIdSource.transportContext("user_id"))
            .authorizationResolver((user, tool, args) -> Optional.ofNullable(grants.get(user)))
            .build();

    HttpServletStreamableServerTransportProvider streamable =
        HttpServletStreamableServerTransportProvider.builder()
            .mcpEndpoint("/mcp")
            .contextExtractor(ToolHidingIT::userOf)
            .build();
    syncServer =
        McpServer.sync(streamable)
            .serverInfo("hiding-sync", "1.0")
            .capabilities(ServerCapabilities.builder().tools(true).build())
            .tools(guard.wrapAllSync(List.of(syncTool("read_inbox"), syncTool("delete_mailbox"))))
            .addToolFilter(guard.toolFilter())
            .build();

    HttpServletStatelessServerTransport stateless =
        HttpServletStatelessServerTransport.builder()
            .messageEndpoint("/stateless")
            .contextExtractor(ToolHidingIT::userOf)
            .build();
    statelessServer =
        McpServer.async(stateless)
            .serverInfo("hiding-stateless", "1.0")
            .capabilities(ServerCapabilities.builder().tools(true).build())
            .tools(
                guard.wrapAllStatelessAsync(
                    List.of(statelessTool("read_inbox"), statelessTool("delete_mailbox"))))
            .addToolFilter(guard.toolFilter().async())
            .build();

    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    ServletHolder streamableHolder = new ServletHolder(streamable);
    streamableHolder.setAsyncSupported(true);
    context.addServlet(streamableHolder, "/mcp");
    ServletHolder statelessHolder = new ServletHolder(stateless);
    statelessHolder.setAsyncSupported(true);
    context.addServlet(statelessHolder, "/stateless");
    jetty.setHandler(context);
    jetty.start();
    baseUrl = "http://127.0.0.1:" + connector.getLocalPort();
  }

  @AfterAll
  static void stop() throws Exception {
    for (McpSyncClient c : clients) {
      c.close();
    }
    syncServer.close();
    statelessServer.close();
    jetty.stop();
    agentAuth.close();
  }

  private static McpTransportContext userOf(HttpServletRequest request) {
    String user = request.getHeader(HEADER);
    return user == null
        ? McpTransportContext.EMPTY
        : McpTransportContext.create(Map.of("user_id", user));
  }

  private static Tool tool(String name) {
    return Tool.builder(name, Map.of("type", "object")).build();
  }

  private static SyncToolSpecification syncTool(String name) {
    return SyncToolSpecification.builder()
        .tool(tool(name))
        .callHandler(
            (exchange, request) -> CallToolResult.builder().addTextContent("ran " + name).build())
        .build();
  }

  private static McpStatelessServerFeatures.AsyncToolSpecification statelessTool(String name) {
    return new McpStatelessServerFeatures.AsyncToolSpecification(
        tool(name),
        (context, request) ->
            Mono.just(CallToolResult.builder().addTextContent("ran " + name).build()));
  }

  private static McpSyncClient client(String endpoint, String user) {
    McpSyncClient c =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder(baseUrl)
                    .endpoint(endpoint)
                    .httpRequestCustomizer(
                        (builder, method, uri, body, ctx) -> {
                          if (user != null) {
                            builder.header(HEADER, user);
                          }
                        })
                    .build())
            .requestTimeout(Duration.ofSeconds(10))
            .build();
    clients.add(c);
    c.initialize();
    return c;
  }

  private static List<String> listed(McpSyncClient c) {
    return c.listTools().tools().stream().map(Tool::name).toList();
  }

  private static long receipts() {
    return StreamSupport.stream(
            client.receipts().listAutoPaging(ReceiptListParams.builder().build()).spliterator(),
            false)
        .count();
  }

  @Test
  void eachUserSeesTheToolsTheirAuthorizationGrantsAndListingCreatesNoReceipt() {
    long before = receipts();

    assertThat(listed(client("/mcp", "alice"))).containsExactly("read_inbox");
    assertThat(listed(client("/mcp", "bob"))).isEmpty();
    assertThat(listed(client("/mcp", null))).isEmpty();
    assertThat(listed(client("/stateless", "alice"))).containsExactly("read_inbox");
    assertThat(listed(client("/stateless", "bob"))).isEmpty();

    assertThat(receipts()).isEqualTo(before);
  }

  @Test
  void aHiddenToolIsStillCheckedWhenCalledByName() {
    CallToolResult sync =
        client("/mcp", "alice").callTool(new CallToolRequest("delete_mailbox", Map.of()));
    CallToolResult stateless =
        client("/stateless", "alice").callTool(new CallToolRequest("delete_mailbox", Map.of()));

    for (CallToolResult r : List.of(sync, stateless)) {
      assertThat(r.isError()).isTrue();
      assertThat(((TextContent) r.content().get(0)).text())
          .contains("\"decision\":\"deny\"")
          .contains("\"reason\":\"scope_not_authorized\"");
    }
    assertThat(
            ((TextContent)
                    client("/stateless", "alice")
                        .callTool(new CallToolRequest("read_inbox", Map.of()))
                        .content()
                        .get(0))
                .text())
        .isEqualTo("ran read_inbox");
  }
}
