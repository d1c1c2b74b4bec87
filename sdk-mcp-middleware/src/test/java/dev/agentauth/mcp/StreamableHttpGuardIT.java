package dev.agentauth.mcp;

import static dev.agentauth.mcp.McpTestBed.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.model.ReceiptLookup;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * End to end: the MCP Java SDK client calls guarded tools of a sync MCP server over streamable
 * HTTP; the guard checks them with the embedded reference server.
 */
class StreamableHttpGuardIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ULID = "[0-9A-HJKMNP-TV-Z]{26}";

  private static McpTestBed bed;
  private static McpSyncClient user1;
  private static McpSyncClient anonymous;

  @BeforeAll
  static void start() throws Exception {
    bed = new McpTestBed();
    user1 = bed.mcpClient("/mcp", McpTestBed.USER);
    anonymous = bed.mcpClient("/mcp", null);
  }

  @AfterAll
  static void stop() throws Exception {
    if (bed != null) {
      bed.close();
    }
  }

  private static JsonNode decision(CallToolResult r) throws Exception {
    assertThat(r.isError()).as("isError of %s", r).isTrue();
    JsonNode text = JSON.readTree(((TextContent) r.content().get(0)).text());
    JsonNode structured = JSON.valueToTree(r.structuredContent());
    assertThat(structured).isEqualTo(text);
    return text;
  }

  private static String text(CallToolResult r) {
    return ((TextContent) r.content().get(0)).text();
  }

  @Test
  void allowRunsTheTool() {
    CallToolResult r = call(user1, "read_inbox", Map.of());

    assertThat(r.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(text(r)).isEqualTo("ran read_inbox");
    GuardDecision d = bed.lastDecision();
    assertThat(d.userId()).isEqualTo(McpTestBed.USER);
    assertThat(d.authorizationId()).isEqualTo(bed.authorizationId);
    assertThat(d.receiptId()).matches(ULID);
  }

  @Test
  void denyReturnsTheDecisionWithItsReceipt() throws Exception {
    JsonNode d = decision(call(user1, "delete_mailbox", Map.of()));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("scope_not_authorized");
    String receiptId = d.path("receipt_id").asText();
    assertThat(receiptId).matches(ULID);
    assertThat(bed.client.receipts().get(receiptId)).isInstanceOf(ReceiptLookup.class);
  }

  @Test
  void confirmThenApproveTheNonceAndRetryIsAllowed() throws Exception {
    Map<String, Object> args = Map.of("to", "ada@example.org");
    JsonNode d = decision(call(user1, "send_email", args));
    assertThat(d.path("decision").asText()).isEqualTo("confirm");
    assertThat(d.path("reason").asText()).isEqualTo("scope_requires_user_confirmation");
    assertThat(d.path("confirm_prompt_hint").isTextual()).isTrue();
    assertThat(Instant.parse(d.path("confirm_expires_at").asText())).isAfter(Instant.now());
    assertThat(d.path("receipt_id").asText()).matches(ULID);

    bed.client.confirmations().approve(d.path("confirm_nonce").asText());
    CallToolResult retry = call(user1, "send_email", args);

    assertThat(text(retry)).isEqualTo("ran send_email");
    assertThat(bed.lastDecision().reason().value())
        .isEqualTo("authorization_granted_via_confirmation");
  }

  @Test
  void escalateThenResolveAndRetryIsAllowedOnce() throws Exception {
    JsonNode d = decision(call(user1, "wire_money", Map.of()));
    assertThat(d.path("decision").asText()).isEqualTo("escalate");
    assertThat(d.path("reason").asText()).isEqualTo("escalation_required");
    assertThat(d.path("escalation_to").asText()).isEqualTo("security");
    assertThat(d.path("escalation_expires_at").asText()).endsWith("Z");

    bed.client
        .escalations()
        .resolve(d.path("escalation_id").asText(), EscalationResolveParams.approve("approver_7"));
    CallToolResult retry = call(user1, "wire_money", Map.of());
    CallToolResult again = call(user1, "wire_money", Map.of());

    assertThat(text(retry)).isEqualTo("ran wire_money");
    assertThat(decision(again).path("decision").asText()).isEqualTo("escalate");
  }

  @Test
  void aToolWithAnOutputSchemaGetsTheDecisionInMeta() throws Exception {
    CallToolResult r = call(user1, "export_report", Map.of());

    assertThat(r.isError()).isTrue();
    assertThat(r.structuredContent()).isNull();
    @SuppressWarnings("unchecked")
    Map<String, Object> meta =
        (Map<String, Object>) r.meta().get(AgentAuthToolGuard.DECISION_META_KEY);
    assertThat(meta)
        .containsEntry("decision", "deny")
        .containsEntry("reason", "scope_not_authorized");
    JsonNode metaJson = JSON.valueToTree(meta);
    assertThat(JSON.readTree(text(r))).isEqualTo(metaJson);
  }

  @Test
  void identityComesFromTheTransportContextNotTheArgument() throws Exception {
    CallToolResult asUser1 = call(user1, "read_inbox", Map.of("user_id", "someone_else"));
    assertThat(text(asUser1)).isEqualTo("ran read_inbox");
    assertThat(bed.lastDecision().userId()).isEqualTo(McpTestBed.USER);

    JsonNode d = decision(call(anonymous, "read_inbox", Map.of("user_id", McpTestBed.USER)));
    assertThat(d.path("reason").asText()).isEqualTo("missing_user_id");
    assertThat(d.path("local").asBoolean()).isTrue();
    assertThat(d.has("receipt_id")).isFalse();
  }

  @Test
  void identityFromTheUserIdArgumentAsTheServiceSpecDescribes() throws Exception {
    CallToolResult named = call(anonymous, "lookup_order", Map.of("user_id", McpTestBed.USER));
    assertThat(text(named)).isEqualTo("ran lookup_order");

    JsonNode missing = decision(call(user1, "lookup_order", Map.of()));
    assertThat(missing.path("reason").asText()).isEqualTo("missing_user_id");
  }

  @Test
  void missingUserIsDeniedLocally() throws Exception {
    int decisionsBefore = bed.decisions.size();

    JsonNode d = decision(call(anonymous, "read_inbox", Map.of()));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("missing_user_id");
    assertThat(d.path("local").asBoolean()).isTrue();
    assertThat(bed.decisions.size()).isEqualTo(decisionsBefore + 1);
    assertThat(bed.lastDecision().local()).isTrue();
  }

  @Test
  void resolverReturningNothingIsDeniedLocally() throws Exception {
    McpSyncClient ghost = bed.mcpClient("/mcp", "ghost");

    JsonNode d = decision(call(ghost, "read_inbox", Map.of()));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("authorization_not_found");
    assertThat(d.path("local").asBoolean()).isTrue();
    assertThat(d.has("receipt_id")).isFalse();
  }

  @Test
  void serviceDownFailClosedDeniesWithFallbackMarkers() throws Exception {
    JsonNode d = decision(call(user1, "down_closed", Map.of()));

    assertThat(d.path("decision").asText()).isEqualTo("deny");
    assertThat(d.path("reason").asText()).isEqualTo("fallback_closed_unreachable");
    assertThat(d.path("fallback").asBoolean()).isTrue();
    assertThat(d.path("fallback_mode").asText()).isEqualTo("fail_closed");
    assertThat(d.has("receipt_id")).isFalse();
  }

  @Test
  void serviceDownFailOpenRunsTheTool() {
    CallToolResult r = call(user1, "down_open", Map.of());

    assertThat(text(r)).isEqualTo("ran down_open");
    assertThat(bed.lastDecision().reason().value()).isEqualTo("fallback_open_unreachable");
    assertThat(bed.lastDecision().fallback()).isTrue();
  }

  @Test
  void serviceDownWithFallbackDisabledIsAProtocolErrorAndTheToolDoesNotRun() {
    assertThatThrownBy(() -> call(user1, "down_disabled", Map.of())).isInstanceOf(McpError.class);
  }
}
