package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.at;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.confirm;
import static dev.agentauth.server.CheckFixtures.fieldNames;
import static dev.agentauth.server.CheckFixtures.outcome;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static dev.agentauth.server.CheckFixtures.receiptIds;
import static dev.agentauth.server.CheckFixtures.verifiedReceipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Who approved a confirmation, and through what (decisions.md §19): the {@code tool_server} role
 * answering confirmations, the {@code via} of {@code POST /v1/confirmations/{nonce}}, and {@code
 * context.agentauth_confirmation} in the signed receipt of every allow the approval gives.
 */
class ConfirmationProvenanceIT {
  private static final String CONFIRMED =
      "{\"scopes\":[{\"name\":\"email.send\"},{\"name\":\"sms.send\"}],"
          + "\"requires_confirm_for\":[\"email.send\",\"sms.send\"]}";

  private ServerHarness h;
  private String fullKey;
  private String id;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
    fullKey = h.apiKey();
    id = authorize(h, CONFIRMED);
  }

  @AfterEach
  void stop() {
    h.close();
  }

  /** A new key of {@code role}: its secret and its id. */
  private String[] newKey(String role) {
    JsonNode k = h.newKey("{\"role\":\"" + role + "\"}");
    return new String[] {k.path("api_key").asText(), k.path("key_id").asText()};
  }

  private String nonce(String scope, String resource) {
    JsonNode r = check(h, id, scope).resource(resource).result();
    assertThat(outcome(r)).isEqualTo("confirm/scope_requires_user_confirmation");
    return r.path("confirm_nonce").asText();
  }

  private JsonNode allow(String scope, String resource) {
    JsonNode r = check(h, id, scope).resource(resource).result();
    assertThat(outcome(r)).isEqualTo("allow/authorization_granted_via_confirmation");
    return r;
  }

  private static void assertProvenance(
      JsonNode receipt, String keyId, String role, String via, Instant confirmedAt) {
    JsonNode a = receipt.path("context").path("agentauth_confirmation");
    assertThat(fieldNames(a)).containsExactlyInAnyOrder("key_id", "role", "via", "confirmed_at");
    assertThat(a.path("key_id").asText()).isEqualTo(keyId);
    assertThat(a.path("role").asText()).isEqualTo(role);
    assertThat(a.path("via").asText()).isEqualTo(via);
    assertThat(a.path("confirmed_at").asText()).isEqualTo(at(confirmedAt));
  }

  @Test
  void aToolServerChecksApprovesAndEveryAllowReceiptNamesItsKeyRoleAndVia() {
    String[] toolServer = newKey("tool_server");
    h.useApiKey(toolServer[0]);
    String n = nonce("email.send", "mailbox:1");
    h.clock.advance(Duration.ofSeconds(3));
    Instant approvedAt = h.clock.instant();
    Resp approved = confirm(h, n, "{\"approved\":true,\"via\":\"mcp_elicitation\"}");
    assertThat(approved.status()).as(approved.raw()).isEqualTo(200);
    assertThat(approved.body().path("decision").asText()).isEqualTo("approved");
    String grant = approved.body().path("authorization_id").asText();

    for (int i = 0; i < 2; i++) {
      h.clock.advance(Duration.ofSeconds(5));
      JsonNode receipt = verifiedReceipt(h, receiptId(allow("email.send", "mailbox:1")));
      assertThat(receipt.path("issued_at").asText()).isEqualTo(at(h.clock.instant()));
      assertThat(receipt.path("context").path("confirmation_authorization_id").asText())
          .isEqualTo(grant);
      assertProvenance(receipt, toolServer[1], "tool_server", "mcp_elicitation", approvedAt);
    }
    h.verifyChain(id);
  }

  @Test
  void aLongClientContextAndTheProvenanceAreBothSignedAndReadBackWhole() {
    String[] toolServer = newKey("tool_server");
    h.useApiKey(toolServer[0]);
    Instant approvedAt = h.clock.instant();
    confirm(h, nonce("email.send", "doc:7"), "{\"approved\":true,\"via\":\"mcp_elicitation\"}");
    // Longer than the 256 characters from which the SQL stores keep a context once.
    String note = "x".repeat(600);
    JsonNode r =
        check(h, id, "email.send")
            .resource("doc:7")
            .context("{\"note\":\"" + note + "\",\"tool\":\"notes.delete\"}")
            .result();
    assertThat(outcome(r)).isEqualTo("allow/authorization_granted_via_confirmation");
    JsonNode receipt = verifiedReceipt(h, receiptId(r));
    assertThat(receipt.path("context").path("client_context").path("note").asText())
        .isEqualTo(note);
    assertProvenance(receipt, toolServer[1], "tool_server", "mcp_elicitation", approvedAt);
    h.verifyChain(id);
  }

  @Test
  void anApprovalWithoutViaIsRecordedAsApiUnderTheApprovingKey() {
    String fullKeyId = h.get("/v1/api-keys/current").body().path("key_id").asText();
    Instant approvedAt = h.clock.instant();
    CheckFixtures.approve(h, nonce("email.send", null));
    h.clock.advance(Duration.ofSeconds(1));
    JsonNode receipt = verifiedReceipt(h, receiptId(allow("email.send", null)));
    assertProvenance(receipt, fullKeyId, "full", "api", approvedAt);
  }

  @Test
  void eachScopeOfOneCheckNamesTheApprovalItUsed() {
    String[] toolServer = newKey("tool_server");
    String[] app = newKey("app");
    Instant first = h.clock.instant();
    h.useApiKey(toolServer[0]);
    confirm(h, nonce("email.send", "r"), "{\"approved\":true,\"via\":\"mcp_elicitation\"}");
    h.clock.advance(Duration.ofSeconds(2));
    Instant second = h.clock.instant();
    h.useApiKey(app[0]);
    confirm(h, nonce("sms.send", "r"), "{\"approved\":true,\"via\":\"console\"}");

    JsonNode results = check(h, id, "email.send", "sms.send").resource("r").ok().path("results");
    assertThat(outcome(results.path("email.send")))
        .isEqualTo("allow/authorization_granted_via_confirmation");
    assertThat(outcome(results.path("sms.send")))
        .isEqualTo("allow/authorization_granted_via_confirmation");
    assertProvenance(
        verifiedReceipt(h, receiptId(results.path("email.send"))),
        toolServer[1],
        "tool_server",
        "mcp_elicitation",
        first);
    assertProvenance(
        verifiedReceipt(h, receiptId(results.path("sms.send"))), app[1], "app", "console", second);
    h.verifyChain(id);
  }

  @Test
  void receiptsOfOtherDecisionsCarryNoProvenance() {
    JsonNode confirmResult = check(h, id, "email.send").resource("m").result();
    String plain = authorize(h, "{\"scopes\":[{\"name\":\"calendar.read\"}]}");
    JsonNode allowed = check(h, plain, "calendar.read").result();
    assertThat(outcome(allowed)).isEqualTo("allow/authorization_granted_scope_active");
    for (JsonNode r : List.of(confirmResult, allowed)) {
      assertThat(verifiedReceipt(h, receiptId(r)).path("context").has("agentauth_confirmation"))
          .isFalse();
    }
  }

  @Test
  void aToolServerDeclinesWithVia() {
    h.useApiKey(newKey("tool_server")[0]);
    String n = nonce("email.send", "m");
    Resp declined = confirm(h, n, "{\"approved\":false,\"via\":\"mcp_elicitation\"}");
    assertThat(declined.status()).as(declined.raw()).isEqualTo(200);
    assertThat(declined.body().path("decision").asText()).isEqualTo("denied_by_user");
    assertThat(confirm(h, n, "{\"approved\":true}").status()).isEqualTo(410);
    assertThat(nonce("email.send", "m")).isNotEqualTo(n);
  }

  @Test
  void anAgentKeyMayCheckButNotConfirmAndTheNonceStaysOpen() {
    String[] agent = newKey("agent");
    h.useApiKey(agent[0]);
    String n = nonce("email.send", "m");
    for (String body :
        new String[] {
          "{\"approved\":true,\"via\":\"mcp_elicitation\"}", "{\"approved\":false}",
        }) {
      Resp r = confirm(h, n, body);
      assertThat(r.status()).as(r.raw()).isEqualTo(403);
      assertThat(r.code()).isEqualTo("forbidden");
      assertThat(r.body().path("detail").asText()).contains("role is agent");
    }
    assertThat(nonce("email.send", "m")).isEqualTo(n);
    h.useApiKey(fullKey);
    CheckFixtures.approve(h, n);
  }

  @Test
  void viaOutsideApiMcpElicitationAndConsoleIs400NamingItAndLeavesTheNonceOpen() {
    String n = nonce("email.send", "m");
    for (String body :
        new String[] {
          "{\"approved\":true,\"via\":\"sms\"}",
          "{\"approved\":true,\"via\":\"\"}",
          "{\"approved\":true,\"via\":\"API\"}",
          "{\"approved\":false,\"via\":\"mcp-elicitation\"}",
          "{\"approved\":true,\"via\":7}",
          "{\"approved\":true,\"via\":[\"api\"]}",
          "{\"approved\":true,\"via\":{\"kind\":\"api\"}}",
        }) {
      Resp r = confirm(h, n, body);
      assertThat(r.status()).as(body + " -> " + r.raw()).isEqualTo(400);
      assertThat(r.code()).as(body).isEqualTo("invalid_request");
      assertThat(r.header("Content-Type")).startsWith("application/problem+json");
      assertThat(r.fields()).as(body).containsExactly("via");
    }
    // Other unknown members are still refused, naming them.
    Resp unknown = confirm(h, n, "{\"approved\":true,\"vai\":\"api\"}");
    assertThat(unknown.status()).as(unknown.raw()).isEqualTo(400);
    assertThat(unknown.fields()).containsExactly("vai");
    // A null via is an absent one.
    Resp ok = confirm(h, n, "{\"approved\":true,\"via\":null}");
    assertThat(ok.status()).as(ok.raw()).isEqualTo(200);
  }

  @Test
  void aCheckSendingAgentauthConfirmationIs400AndWritesNothing() {
    CheckFixtures.approve(h, nonce("email.send", "m"));
    List<String> before = receiptIds(h, "");
    Resp r =
        check(h, id, "email.send")
            .resource("m")
            .context(
                "{\"agentauth_confirmation\":{\"key_id\":\"key_forged\",\"role\":\"app\","
                    + "\"via\":\"console\",\"confirmed_at\":\"2026-11-22T10:00:00.000Z\"}}")
            .send();
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("invalid_request");
    assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    assertThat(r.fields()).containsExactly("context.agentauth_confirmation");
    Resp nullMember =
        check(h, id, "email.send")
            .resource("m")
            .context("{\"agentauth_confirmation\":null}")
            .send();
    assertThat(nullMember.status()).as(nullMember.raw()).isEqualTo(400);
    assertThat(nullMember.fields()).containsExactly("context.agentauth_confirmation");
    assertThat(receiptIds(h, "")).isEqualTo(before);

    // The member is reserved at the top of the context only.
    JsonNode nested =
        check(h, id, "email.send")
            .resource("m")
            .context("{\"tool\":{\"agentauth_confirmation\":1}}")
            .result();
    assertThat(outcome(nested)).isEqualTo("allow/authorization_granted_via_confirmation");
  }
}
