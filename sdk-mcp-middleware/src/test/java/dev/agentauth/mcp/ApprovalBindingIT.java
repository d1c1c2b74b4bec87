package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.EscalationResolveParams;
import dev.agentauth.model.ApiKeyRole;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * decisions §19, end to end with the embedded reference server: one approval allows one action. The
 * MCP Java SDK client calls the guarded notes tools; approvals come from the application's own key,
 * as an approval UI would send them.
 */
class ApprovalBindingIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static NotesTestBed bed;
  private static McpSyncClient alice;
  private static McpSyncClient aliceAsync;

  @BeforeAll
  static void start() throws Exception {
    bed = new NotesTestBed(ApiKeyRole.AGENT, b -> b);
    alice = bed.client("/mcp", null);
    aliceAsync = bed.client("/mcp-async", null);
  }

  @AfterAll
  static void stop() throws Exception {
    if (bed != null) {
      bed.close();
    }
  }

  private static JsonNode decision(CallToolResult r) throws Exception {
    assertThat(r.isError()).as("isError of %s", r).isTrue();
    return JSON.readTree(((TextContent) r.content().get(0)).text());
  }

  private static String text(CallToolResult r) {
    assertThat(r.isError()).as("isError of %s", r).isNotEqualTo(Boolean.TRUE);
    return ((TextContent) r.content().get(0)).text();
  }

  @Test
  void approvingDeleteOfOneNoteDoesNotAllowDeletingAnother() throws Exception {
    for (McpSyncClient c : new McpSyncClient[] {alice, aliceAsync}) {
      String note = c == alice ? "n1" : "a1";
      String other = c == alice ? "n2" : "a2";
      JsonNode first = decision(NotesTestBed.call(c, "delete_note", Map.of("id", note)));
      assertThat(first.path("decision").asText()).isEqualTo("confirm");
      String nonce = first.path("confirm_nonce").asText();
      bed.admin.confirmations().approve(nonce);

      JsonNode second = decision(NotesTestBed.call(c, "delete_note", Map.of("id", other)));
      String retry = text(NotesTestBed.call(c, "delete_note", Map.of("id", note)));

      assertThat(second.path("decision").asText()).isEqualTo("confirm");
      assertThat(second.path("confirm_nonce").asText()).isNotEqualTo(nonce);
      assertThat(retry).isEqualTo("ran delete_note {id=" + note + "}");
      assertThat(bed.lastDecision().reason().value())
          .isEqualTo("authorization_granted_via_confirmation");
    }
  }

  @Test
  void approvingOneTransferDoesNotAllowAnotherAndAllowsTheIdenticalRetryOnce() throws Exception {
    Map<String, Object> tenToBob = Map.of("to", "bob", "amount", 10);
    JsonNode first = decision(NotesTestBed.call(alice, "transfer", tenToBob));
    assertThat(first.path("decision").asText()).isEqualTo("escalate");
    String escalationId = first.path("escalation_id").asText();
    bed.admin.escalations().resolve(escalationId, EscalationResolveParams.approve("fin-lead"));

    JsonNode other =
        decision(NotesTestBed.call(alice, "transfer", Map.of("to", "mallory", "amount", 10)));
    JsonNode more =
        decision(NotesTestBed.call(alice, "transfer", Map.of("to", "bob", "amount", 99)));
    String retry = text(NotesTestBed.call(alice, "transfer", Map.of("amount", 10, "to", "bob")));
    JsonNode again = decision(NotesTestBed.call(alice, "transfer", tenToBob));

    assertThat(other.path("decision").asText()).isEqualTo("escalate");
    assertThat(other.path("escalation_id").asText()).isNotEqualTo(escalationId);
    assertThat(more.path("escalation_id").asText())
        .isNotEqualTo(escalationId)
        .isNotEqualTo(other.path("escalation_id").asText());
    assertThat(retry).isEqualTo("ran transfer {amount=10, to=bob}");
    // an escalation approval yields exactly one allow (decisions §4)
    assertThat(again.path("decision").asText()).isEqualTo("escalate");
  }

  @Test
  void aResourcePatternStillMatchesTemplatedResourcesAndNeverADigest() throws Exception {
    String read = text(NotesTestBed.call(alice, "read_note", Map.of("id", "n7")));
    JsonNode digest = decision(NotesTestBed.call(alice, "read_file", Map.of("id", "n7")));

    assertThat(read).isEqualTo("ran read_note {id=n7}");
    assertThat(digest.path("decision").asText()).isEqualTo("deny");
    assertThat(digest.path("message").asText()).isNotBlank();
  }

  @Test
  void confirmAndEscalateResultsTellTheModelWhatToDo() throws Exception {
    JsonNode confirm = decision(NotesTestBed.call(alice, "delete_note", Map.of("id", "n9")));
    JsonNode escalate =
        decision(NotesTestBed.call(alice, "transfer", Map.of("to", "carol", "amount", 1)));

    assertThat(confirm.path("message").asText())
        .isEqualTo(
            "The user must approve delete_note for this call; ask them to confirm it and call"
                + " the tool again with the same arguments once they have.");
    assertThat(escalate.path("message").asText())
        .isEqualTo(
            "The approver \"finance\" must approve this call of transfer; tell the user it is"
                + " waiting for approval and call the tool again with the same arguments once it"
                + " is approved.");
  }

  @Test
  void aRevokedGuardKeyAnswersTheModelWithAToolErrorNotAStackTrace() throws Exception {
    try (NotesTestBed revoked = new NotesTestBed(ApiKeyRole.AGENT, b -> b);
        CapturedStderr log = CapturedStderr.capture()) {
      McpSyncClient c = revoked.client("/mcp", null);
      revoked.admin.apiKeys().revoke(revoked.guardKey.keyId());

      JsonNode r = decision(NotesTestBed.call(c, "read_note", Map.of("id", "n1")));

      assertThat(r.path("decision").asText()).isEqualTo("deny");
      assertThat(r.path("reason").asText()).isEqualTo("service_unavailable");
      assertThat(r.path("message").asText()).contains("read_note did not run");
      assertThat(log.guardLines()).singleElement().asString().contains("401").contains("WARN");
      assertThat(log.text()).doesNotContain("\tat ").doesNotContain("Exception");
    }
  }
}
