package dev.agentauth.mcp;

import static dev.agentauth.mcp.McpTestBed.call;
import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end through an async MCP server ({@code McpServer.async}): the guard's non-blocking path,
 * checking with the client's async API, over streamable HTTP.
 */
class AsyncServerGuardIT {
  private static McpTestBed bed;
  private static McpSyncClient user1;
  private static McpSyncClient anonymous;

  @BeforeAll
  static void start() throws Exception {
    bed = new McpTestBed();
    user1 = bed.mcpClient("/mcp-async", McpTestBed.USER);
    anonymous = bed.mcpClient("/mcp-async", null);
  }

  @AfterAll
  static void stop() throws Exception {
    if (bed != null) {
      bed.close();
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> decision(CallToolResult r) {
    assertThat(r.isError()).as("isError of %s", r).isTrue();
    return (Map<String, Object>) r.structuredContent();
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  @Test
  void allowRunsTheAsyncTool() {
    CallToolResult r = call(user1, "read_inbox", Map.of());

    assertThat(text(r)).isEqualTo("ran read_inbox");
    assertThat(bed.lastDecision().authorizationId()).isEqualTo(bed.asyncAuthorizationId);
  }

  @Test
  void denyReturnsTheDecision() {
    Map<String, Object> d = decision(call(user1, "delete_mailbox", Map.of()));

    assertThat(d).containsEntry("decision", "deny").containsEntry("reason", "scope_not_authorized");
    assertThat(d.get("receipt_id")).asString().hasSize(26);
  }

  @Test
  void confirmThenApproveAndRetryIsAllowed() {
    Map<String, Object> args = Map.of("to", "grace@example.org");
    Map<String, Object> d = decision(call(user1, "send_email", args));
    assertThat(d).containsEntry("decision", "confirm");

    bed.client.confirmations().approve((String) d.get("confirm_nonce"));

    assertThat(text(call(user1, "send_email", args))).isEqualTo("ran send_email");
  }

  @Test
  void missingUserIsDeniedLocally() {
    Map<String, Object> d = decision(call(anonymous, "read_inbox", Map.of()));

    assertThat(d)
        .containsEntry("reason", "missing_user_id")
        .containsEntry("local", true)
        .doesNotContainKey("receipt_id");
  }
}
