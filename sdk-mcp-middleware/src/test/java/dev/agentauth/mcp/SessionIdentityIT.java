package dev.agentauth.mcp;

import static dev.agentauth.mcp.McpTestBed.call;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Identity is per HTTP request, not per MCP session (docs/mcp.md, "Identity: per request or per
 * session"): over streamable HTTP the transport's context extractor runs for every request, and the
 * guard reads the user from the context of the request that carries the tool call. What the
 * initialize request (or any earlier request of the session) carried does not carry over.
 */
class SessionIdentityIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static McpTestBed bed;

  @BeforeAll
  static void start() throws Exception {
    bed = new McpTestBed();
  }

  @AfterAll
  static void stop() throws Exception {
    if (bed != null) {
      bed.close();
    }
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  private static String reason(CallToolResult r) throws Exception {
    assertThat(r.isError()).as("isError of %s", r).isTrue();
    return JSON.readTree(text(r)).path("reason").asText();
  }

  /** "SESSION USER" as the unguarded whoami tool sees the call. */
  private static String[] whoami(McpSyncClient c) {
    return text(call(c, "whoami", Map.of())).split(" ");
  }

  @Test
  void eachRequestOfOneSessionIsCheckedAsTheUserItsOwnContextNames() throws Exception {
    AtomicReference<String> user = new AtomicReference<>(McpTestBed.USER);
    McpSyncClient c = bed.mcpClientPerRequest("/mcp", user::get);

    String[] first = whoami(c);
    assertThat(first[1]).isEqualTo(McpTestBed.USER);
    assertThat(text(call(c, "read_inbox", Map.of()))).isEqualTo("ran read_inbox");
    assertThat(bed.lastDecision().userId()).isEqualTo(McpTestBed.USER);

    user.set("ghost");
    assertThat(whoami(c)).containsExactly(first[0], "ghost");
    assertThat(reason(call(c, "read_inbox", Map.of()))).isEqualTo("authorization_not_found");
    assertThat(bed.lastDecision().userId()).isEqualTo("ghost");

    user.set(null);
    assertThat(whoami(c)).containsExactly(first[0], "-");
    assertThat(reason(call(c, "read_inbox", Map.of()))).isEqualTo("missing_user_id");

    user.set(McpTestBed.USER);
    assertThat(whoami(c)).containsExactly(first[0], McpTestBed.USER);
    assertThat(text(call(c, "read_inbox", Map.of()))).isEqualTo("ran read_inbox");
  }

  @Test
  void authenticatingOnlyTheInitializeRequestLeavesToolCallsWithoutAUser() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    // The header goes on the first HTTP request only: the initialize POST.
    McpSyncClient c =
        bed.mcpClientPerRequest(
            "/mcp", () -> requests.getAndIncrement() == 0 ? McpTestBed.USER : null);

    JsonNode d = JSON.readTree(text(call(c, "read_inbox", Map.of())));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("missing_user_id");
    assertThat(d.path("local").asBoolean()).isTrue();
    assertThat(whoami(c)[1]).isEqualTo("-");
    assertThat(requests.get()).isGreaterThan(1);
  }
}
