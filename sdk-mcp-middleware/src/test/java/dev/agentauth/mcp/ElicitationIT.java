package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.client.GoneException;
import dev.agentauth.model.ApiKeyRole;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ElicitFormRequest;
import io.modelcontextprotocol.spec.McpSchema.ElicitResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * decisions §19, in-client confirmation end to end: the MCP Java SDK client's elicitation handler
 * answers the guard's form in the same {@code tools/call}; the guard holds a {@code tool_server}
 * key and resolves the nonce with the embedded reference server.
 */
class ElicitationIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static NotesTestBed bed;
  private static McpSyncClient alice;
  private static McpSyncClient aliceAsync;
  private static McpSyncClient noCapability;
  private static final AtomicReference<Function<ElicitFormRequest, ElicitResult>> answer =
      new AtomicReference<>();
  private static final List<ElicitFormRequest> asked = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    bed = new NotesTestBed(ApiKeyRole.TOOL_SERVER, b -> b.elicitation(true));
    Function<ElicitFormRequest, ElicitResult> handler =
        request -> {
          asked.add(request);
          return answer.get().apply(request);
        };
    alice = bed.client("/mcp", handler);
    aliceAsync = bed.client("/mcp-async", handler);
    noCapability = bed.client("/mcp", null);
  }

  @AfterAll
  static void stop() throws Exception {
    if (bed != null) {
      bed.close();
    }
  }

  @BeforeEach
  void reset() {
    asked.clear();
  }

  private static ElicitResult accept(boolean approve) {
    return new ElicitResult(ElicitResult.Action.ACCEPT, Map.of("approve", approve));
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
  void acceptingRunsTheToolInTheSameCallAndTheReceiptNamesTheApproval() throws Exception {
    answer.set(request -> accept(true));

    CallToolResult r = NotesTestBed.call(alice, "delete_note", Map.of("id", "e1"));

    assertThat(text(r)).isEqualTo("ran delete_note {id=e1}");
    assertThat(asked).hasSize(1);
    ElicitFormRequest form = asked.get(0);
    assertThat(form.message())
        .contains("delete_note")
        .contains("id: e1")
        .contains("Approving allows this call only.");
    assertThat(form.requestedSchema())
        .containsEntry("type", "object")
        .containsEntry("required", List.of("approve"));
    GuardDecision allow = bed.lastDecision();
    assertThat(allow.reason().value()).isEqualTo("authorization_granted_via_confirmation");
    JsonNode receipt =
        JSON.readTree(
            bed.admin.receipts().awaitSignedJson(allow.receiptId(), Duration.ofSeconds(5)));
    JsonNode approval = receipt.path("context").path("agentauth_confirmation");
    assertThat(approval.path("key_id").asText()).isEqualTo(bed.guardKey.keyId());
    assertThat(approval.path("role").asText()).isEqualTo("tool_server");
    assertThat(approval.path("via").asText()).isEqualTo("mcp_elicitation");
    assertThat(approval.path("confirmed_at").asText()).isNotBlank();
  }

  @Test
  void acceptingOnTheAsyncServerRunsTheToolToo() throws Exception {
    answer.set(request -> accept(true));

    CallToolResult r = NotesTestBed.call(aliceAsync, "delete_note", Map.of("id", "e2"));

    assertThat(text(r)).isEqualTo("ran delete_note {id=e2}");
    assertThat(asked).hasSize(1);
  }

  @Test
  void answeringNoOrDecliningDeclinesTheNonce() throws Exception {
    for (ElicitResult no :
        List.of(accept(false), new ElicitResult(ElicitResult.Action.DECLINE, null))) {
      answer.set(request -> no);
      String note = "e3-" + no.action();

      JsonNode declined = decision(NotesTestBed.call(alice, "delete_note", Map.of("id", note)));

      assertThat(declined.path("decision").asText()).isEqualTo("deny");
      assertThat(declined.path("reason").asText()).isEqualTo("confirmation_declined");
      assertThat(declined.path("message").asText())
          .isEqualTo(
              "The user declined this call of delete_note; do not call it again unless the user"
                  + " asks you to.");
      String nonce = declined.path("confirm_nonce").asText();
      assertThatThrownBy(() -> bed.admin.confirmations().approve(nonce))
          .as("the declined nonce is used up")
          .isInstanceOf(GoneException.class);
      // no lasting block: the next call is asked again, with a fresh nonce
      answer.set(request -> new ElicitResult(ElicitResult.Action.CANCEL, null));
      JsonNode next = decision(NotesTestBed.call(alice, "delete_note", Map.of("id", note)));
      assertThat(next.path("decision").asText()).isEqualTo("confirm");
      assertThat(next.path("confirm_nonce").asText()).isNotEqualTo(nonce);
    }
  }

  @Test
  void cancellingReturnsTheConfirmResultAndLeavesTheNonceOpen() throws Exception {
    answer.set(request -> new ElicitResult(ElicitResult.Action.CANCEL, null));

    JsonNode r = decision(NotesTestBed.call(alice, "delete_note", Map.of("id", "e4")));

    assertThat(r.path("decision").asText()).isEqualTo("confirm");
    assertThat(asked).hasSize(1);
    bed.admin.confirmations().approve(r.path("confirm_nonce").asText());
    assertThat(text(NotesTestBed.call(noCapability, "delete_note", Map.of("id", "e4"))))
        .isEqualTo("ran delete_note {id=e4}");
  }

  @Test
  void aClientWithoutTheCapabilityGetsTheConfirmResult() throws Exception {
    JsonNode r = decision(NotesTestBed.call(noCapability, "delete_note", Map.of("id", "e5")));

    assertThat(r.path("decision").asText()).isEqualTo("confirm");
    assertThat(r.path("confirm_nonce").asText()).isNotBlank();
    assertThat(asked).isEmpty();
  }

  @Test
  void noAnswerWithinTheTimeoutReturnsTheConfirmResult() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    try (NotesTestBed quick =
        new NotesTestBed(
            ApiKeyRole.TOOL_SERVER,
            b -> b.elicitation(true).confirmationTimeout(Duration.ofMillis(300)))) {
      McpSyncClient c =
          quick.client(
              "/mcp",
              request -> {
                try {
                  never.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
                return new ElicitResult(ElicitResult.Action.CANCEL, null);
              });
      try {
        JsonNode r = decision(NotesTestBed.call(c, "delete_note", Map.of("id", "e6")));

        assertThat(r.path("decision").asText()).isEqualTo("confirm");
        assertThat(r.path("message").asText()).startsWith("The user must approve delete_note");
      } finally {
        never.countDown(); // lets the client's handler return before the bed closes
      }
    }
  }

  @Test
  void anAgentKeyCannotConfirmAndTheGuardFallsBackToTheConfirmResult() throws Exception {
    try (NotesTestBed agentBed = new NotesTestBed(ApiKeyRole.AGENT, b -> b.elicitation(true));
        CapturedStderr log = CapturedStderr.capture()) {
      McpSyncClient c = agentBed.client("/mcp", request -> accept(true));

      JsonNode r = decision(NotesTestBed.call(c, "delete_note", Map.of("id", "e7")));

      assertThat(r.path("decision").asText()).isEqualTo("confirm");
      assertThat(log.guardLines())
          .singleElement()
          .asString()
          .contains("WARN")
          .contains("403")
          .contains("delete_note")
          .contains("role tool_server");
      assertThat(log.text()).doesNotContain("\tat ");
    }
  }
}
