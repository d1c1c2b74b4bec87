package dev.agentauth.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The same example on Spring AI's STATELESS protocol: its stateless tool specifications are guarded
 * and the user still comes from the authenticated principal (the starter's stateless transport).
 * Spring AI 2.0.1 offers no customizer of stateless servers, so tools/list is not filtered there:
 * every tool is listed, and each call is checked.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "spring.ai.mcp.server.protocol=STATELESS")
@Import(AgentAuthTestServer.Decisions.class)
class StatelessServerIT {
  private static final List<McpSyncClient> CLIENTS = new CopyOnWriteArrayList<>();

  @DynamicPropertySource
  static void agentAuth(DynamicPropertyRegistry registry) {
    AgentAuthTestServer.register(registry);
  }

  @LocalServerPort int port;
  @Autowired AgentAuthTestServer.DecisionLog log;

  @AfterAll
  static void closeClients() {
    CLIENTS.forEach(McpSyncClient::closeGracefully);
  }

  private McpSyncClient client(String token) {
    return McpClients.connect(port, token, CLIENTS);
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  @Test
  void statelessCallsAreCheckedAsTheAuthenticatedUser() {
    CallToolResult allowed =
        client("alice-token")
            .callTool(new CallToolRequest("search_notes", Map.of("query", "bank")));
    assertThat(text(allowed)).contains("Call the bank");
    assertThat(log.last().userId()).isEqualTo("alice");
    assertThat(log.last().allowed()).isTrue();

    CallToolResult denied =
        client("bob-token")
            .callTool(
                new CallToolRequest("send_email", Map.of("to", "a@example.org", "body", "x")));
    assertThat(denied.isError()).isTrue();
    assertThat(text(denied)).contains("\"reason\":\"scope_not_authorized\"");
    assertThat(log.last().userId()).isEqualTo("bob");
  }

  @Test
  void toolsListIsNotFilteredOnStatelessServers() {
    assertThat(client("bob-token").listTools().tools().stream().map(Tool::name))
        .containsExactlyInAnyOrder("search_notes", "send_email", "delete_note");
  }
}
