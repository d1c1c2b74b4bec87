package com.example.notes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.agentauth.spring.test.EmbeddedAgentAuth;
import dev.agentauth.spring.test.EmbeddedAgentAuthServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * The application against the embedded agentauth server of agentauth-spring-boot-test, called over
 * streamable HTTP by the MCP Java SDK client. The context is closed after the class, inside the
 * build's log, so that its shutdown is checked for ERROR lines too.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@EmbeddedAgentAuthServer
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NotesApplicationTest {
  @Autowired EmbeddedAgentAuth agentAuth;
  @LocalServerPort int port;

  @BeforeAll
  void grantAlice() {
    agentAuth
        .adminClient()
        .authorizations()
        .create(agentAuth.grant("alice").scope("notes.read").build());
  }

  private McpSyncClient client(String token) {
    HttpClientStreamableHttpTransport transport =
        HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
            .endpoint("/mcp")
            .jsonMapper(new JacksonMcpJsonMapper(JsonMapper.builder().build()))
            .httpRequestCustomizer(
                (builder, method, uri, body, context) ->
                    builder.header("Authorization", "Bearer " + token))
            .build();
    McpSyncClient c = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(20)).build();
    c.initialize();
    return c;
  }

  private static CallToolResult readNote(McpSyncClient c) {
    return c.callTool(new CallToolRequest("read_note", Map.of("id", "n1")));
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  @Test
  void aGrantedUsersCallRuns() {
    McpSyncClient alice = client("alice-token");
    try {
      CallToolResult r = readNote(alice);
      assertFalse(Boolean.TRUE.equals(r.isError()), () -> "isError: " + r);
      assertEquals("\"note n1: call the bank\"", text(r)); // the tool's result, as JSON
    } finally {
      alice.closeGracefully();
    }
  }

  @Test
  void aUserWithoutAGrantIsRefusedWithTheDecision() {
    McpSyncClient bob = client("bob-token");
    try {
      CallToolResult r = readNote(bob);
      assertTrue(Boolean.TRUE.equals(r.isError()), () -> "isError: " + r);
      assertTrue(text(r).contains("\"decision\":\"deny\""), text(r));
    } finally {
      bob.closeGracefully();
    }
  }
}
