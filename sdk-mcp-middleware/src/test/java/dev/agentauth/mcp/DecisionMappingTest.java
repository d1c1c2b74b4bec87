package dev.agentauth.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Reason;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Service spec, "Client middleware behaviour": each decision mapped to the tool's outcome. */
class DecisionMappingTest extends GuardTestSupport {

  @Test
  void allowRunsTheToolAndChecksTheToolNameAsTheSingleScope() throws Exception {
    server.enqueue(allow("send_email"));
    SyncToolSpecification guarded = guard().build().wrap(syncTool("send_email"));

    CallToolResult r = call(guarded);

    assertThat(r.isError()).isNotEqualTo(Boolean.TRUE);
    assertThat(text(r)).isEqualTo("ran send_email");
    assertThat(toolThreads).hasSize(1);
    JsonNode check = takeCheck();
    assertThat(check.path("authorization_id").asText()).isEqualTo("auth_1");
    assertThat(check.path("scopes").toString()).isEqualTo("[\"send_email\"]");
    // decisions §19: by default the resource binds the call's arguments
    assertThat(check.path("resource").asText())
        .isEqualTo("send_email:" + ResourceBindingTest.digestOf("{\"user_id\":\"u_1\"}"));
    assertThat(check.has("context")).isFalse();
    assertThat(check.has("user_id")).isFalse();
  }

  @Test
  void denyReturnsAnErrorResultWithDecisionReasonAndReceiptId() throws Exception {
    server.enqueue(deny("send_email", "scope_not_authorized"));

    CallToolResult r = call(guard().build().wrap(syncTool("send_email")));

    assertThat(r.isError()).isTrue();
    assertThat(toolThreads).isEmpty();
    assertThat(structured(r))
        .containsExactly(
            entry("decision", "deny"),
            entry("reason", "scope_not_authorized"),
            entry("receipt_id", RECEIPT_ID),
            entry(
                "message",
                "The user's authorization does not include send_email; calling again will not"
                    + " help, so tell the user they must grant it first."));
    assertThat(textJson(r)).isEqualTo(structured(r));
    assertThat(r.content()).hasSize(1);
    assertThat(r.meta()).isNull();
  }

  @Test
  void confirmCarriesTheNonceItsExpiryAndPromptHint() throws Exception {
    server.enqueue(confirm("send_email"));

    CallToolResult r = call(guard().build().wrap(syncTool("send_email")));

    assertThat(r.isError()).isTrue();
    assertThat(toolThreads).isEmpty();
    assertThat(structured(r))
        .containsExactly(
            entry("decision", "confirm"),
            entry("reason", "scope_requires_user_confirmation"),
            entry("confirm_nonce", "nonce_1"),
            entry("confirm_expires_at", "2026-11-22T10:05:00.000Z"),
            entry("confirm_prompt_hint", "Send e-mail"),
            entry("receipt_id", RECEIPT_ID),
            entry(
                "message",
                "The user must approve send_email for this call; ask them to confirm it and call"
                    + " the tool again with the same arguments once they have."));
    assertThat(textJson(r)).isEqualTo(structured(r));
  }

  @Test
  void escalateCarriesTheEscalationIdTargetAndExpiry() throws Exception {
    server.enqueue(escalate("wire_money", "security"));

    CallToolResult r = call(guard().build().wrap(syncTool("wire_money")));

    assertThat(r.isError()).isTrue();
    assertThat(toolThreads).isEmpty();
    assertThat(structured(r))
        .containsExactly(
            entry("decision", "escalate"),
            entry("reason", "escalation_required"),
            entry("escalation_id", "esc_1"),
            entry("escalation_to", "security"),
            entry("escalation_expires_at", "2026-11-23T10:00:00.000Z"),
            entry("receipt_id", RECEIPT_ID),
            entry(
                "message",
                "The approver \"security\" must approve this call of wire_money; tell the user it"
                    + " is waiting for approval and call the tool again with the same arguments"
                    + " once it is approved."));
    assertThat(textJson(r)).isEqualTo(structured(r));
  }

  @Test
  void escalateWithoutAConfiguredTargetOmitsEscalationTo() {
    server.enqueue(escalate("wire_money", null));

    CallToolResult r = call(guard().build().wrap(syncTool("wire_money")));

    assertThat(structured(r)).doesNotContainKey("escalation_to").containsKey("escalation_id");
  }

  @Test
  void aDecisionThisSdkDoesNotKnowNeverRunsTheTool() {
    server.enqueue(
        checkResponse("send_email", "{\"decision\":\"quarantine\",\"reason\":\"new_rule\"}"));

    CallToolResult r = call(guard().build().wrap(syncTool("send_email")));

    assertThat(r.isError()).isTrue();
    assertThat(toolThreads).isEmpty();
    assertThat(structured(r))
        .containsExactly(
            entry("decision", "quarantine"),
            entry("reason", "new_rule"),
            entry(
                "message",
                "The call of send_email was not allowed (new_rule); calling again will not help,"
                    + " so tell the user."));
  }

  @Test
  void toolWithAnOutputSchemaGetsTheDecisionInMetaInsteadOfStructuredContent() throws Exception {
    server.enqueue(deny("send_email", "authorization_revoked"));

    CallToolResult r = call(guard().build().wrap(syncTool(toolWithOutputSchema("send_email"))));

    assertThat(r.isError()).isTrue();
    assertThat(r.structuredContent()).isNull();
    assertThat(r.meta()).containsOnlyKeys(AgentAuthToolGuard.DECISION_META_KEY);
    assertThat(r.meta().get(AgentAuthToolGuard.DECISION_META_KEY))
        .isEqualTo(
            Map.of(
                "decision",
                "deny",
                "reason",
                "authorization_revoked",
                "receipt_id",
                RECEIPT_ID,
                "message",
                "The user's authorization for send_email was revoked; calling again will not help,"
                    + " so tell the user they must grant access again."));
    assertThat(textJson(r)).isEqualTo(r.meta().get(AgentAuthToolGuard.DECISION_META_KEY));
  }

  @Test
  void resourceContextSessionAndCostComeFromTheExtractors() throws Exception {
    server.enqueue(allow("send_email"));
    AgentAuthToolGuard g =
        guard()
            .resourceExtractor(c -> "mailbox:" + c.stringArgument("to"))
            .contextExtractor(c -> Map.of("initiated_by", "agent"))
            .sessionIdExtractor(ToolCall::sessionId)
            .estimatedCostExtractor(c -> 250L)
            .build();

    g.wrap(syncTool("send_email"))
        .callHandler()
        .apply(exchange(), request("send_email", Map.of("user_id", "u_1", "to", "ada")));

    JsonNode check = takeCheck();
    assertThat(check.path("resource").asText()).isEqualTo("mailbox:ada");
    assertThat(check.path("context").path("initiated_by").asText()).isEqualTo("agent");
    assertThat(check.path("session_id").asText()).isEqualTo("session-1");
    assertThat(check.path("estimated_cost_micros").asLong()).isEqualTo(250L);
  }

  @Test
  void scopeMapperRenamesTheCheckedScope() throws Exception {
    server.enqueue(allow("mcp.send_email"));
    AgentAuthToolGuard g = guard().scopeMapper(name -> "mcp." + name).build();

    CallToolResult r = call(g.wrap(syncTool("send_email")));

    assertThat(text(r)).isEqualTo("ran send_email");
    assertThat(takeCheck().path("scopes").toString()).isEqualTo("[\"mcp.send_email\"]");
    assertThat(decisions.get(0).toolName()).isEqualTo("send_email");
    assertThat(decisions.get(0).scope()).isEqualTo("mcp.send_email");
  }

  @Test
  void listenerSeesToolUserDecisionReasonLatencyAndReceipt() {
    server.enqueue(deny("send_email", "rate_limit_exceeded"));
    AtomicLong now = new AtomicLong(1_000);
    AgentAuthToolGuard g = guard().nanoTime(() -> now.getAndAdd(250_000)).build();

    call(g.wrap(syncTool("send_email")));

    assertThat(decisions).hasSize(1);
    GuardDecision d = decisions.get(0);
    assertThat(d.toolName()).isEqualTo("send_email");
    assertThat(d.scope()).isEqualTo("send_email");
    assertThat(d.userId()).isEqualTo("u_1");
    assertThat(d.authorizationId()).isEqualTo("auth_1");
    assertThat(d.decision()).isEqualTo(Decision.DENY);
    assertThat(d.reason()).isEqualTo(Reason.RATE_LIMIT_EXCEEDED);
    assertThat(d.latency()).isEqualTo(Duration.ofNanos(250_000));
    assertThat(d.receiptId()).isEqualTo(RECEIPT_ID);
    assertThat(d.local()).isFalse();
    assertThat(d.fallback()).isFalse();
    assertThat(d.allowed()).isFalse();
  }

  @Test
  void aFailingListenerNeverChangesTheOutcome() {
    server.enqueue(allow("send_email"));
    AgentAuthToolGuard g =
        guard()
            .listener(
                d -> {
                  throw new IllegalStateException("metrics backend down");
                })
            .build();

    CallToolResult r = call(g.wrap(syncTool("send_email")));

    assertThat(text(r)).isEqualTo("ran send_email");
  }
}
