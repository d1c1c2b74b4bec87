package dev.agentauth.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.agentauth.model.AgentAuthJson;
import dev.agentauth.model.AuthorizationStatus;
import dev.agentauth.model.ConfirmationVia;
import dev.agentauth.model.Decision;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.ReceiptEvent;
import dev.agentauth.model.ScopeConstraints;
import dev.agentauth.model.ScopeEntry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;

/** What goes on the wire for each operation: method, path, query and JSON body. */
class RequestShapeTest extends MockServerSupport {
  private static final ObjectMapper JSON = AgentAuthJson.newObjectMapper();

  private JsonNode body(RecordedRequest r) throws Exception {
    return JSON.readTree(r.getBody().string(StandardCharsets.UTF_8));
  }

  @Test
  void checkPostsTheValidatedBodyAndWaitQuery() throws Exception {
    server.enqueue(fixture(200, "check-signed.json"));

    client.check(
        CheckParams.builder()
            .authorizationId("auth_01")
            .scope("email.send")
            .resource("mailbox:42")
            .sessionId("sess_1")
            .initiatedBy("user")
            .waitForReceipt(true)
            .build());

    RecordedRequest r = take();
    assertThat(r.getMethod()).isEqualTo("POST");
    assertThat(r.getTarget()).isEqualTo("/v1/check?wait=true");
    assertThat(r.getHeaders().get("Content-Type")).startsWith("application/json");
    assertThat(body(r).toString())
        .isEqualTo(
            "{\"authorization_id\":\"auth_01\",\"scopes\":[\"email.send\"],\"resource\":\"mailbox:42\","
                + "\"session_id\":\"sess_1\",\"context\":{\"initiated_by\":\"user\"}}");
  }

  @Test
  void inlineAuthorizationBodyHasEveryGivenMemberAndNoBundleId() throws Exception {
    server.enqueue(fixture(201, "authorization-created.json"));

    client
        .authorizations()
        .create(
            AuthorizationCreateParams.inline()
                .userId("u_7Hc2")
                .agentId("support-bot")
                .scope("email.send")
                .scope(new ScopeEntry("crm.read", new ScopeConstraints(100L, "crm:*", null)))
                .requiresConfirmFor("email.send")
                .escalationTarget("crm.read", "manager")
                .expiresAt(Instant.parse("2026-12-22T10:00:00Z"))
                .putMetadata("ticket", "T-1")
                .build());

    RecordedRequest r = take();
    assertThat(r.getTarget()).isEqualTo("/v1/authorizations");
    JsonNode b = body(r);
    assertThat(b.has("bundle_id")).isFalse();
    assertThat(b.get("expires_at").asText()).isEqualTo("2026-12-22T10:00:00.000Z");
    assertThat(b.get("scopes").get(1).get("constraints").get("resource_pattern").asText())
        .isEqualTo("crm:*");
    assertThat(b.get("escalation_targets").get("crm.read").asText()).isEqualTo("manager");
  }

  @Test
  void revokeSendsItsOptionalBodyWithDelete() throws Exception {
    server.enqueue(fixture(200, "authorization-revoked.json"));
    server.enqueue(fixture(200, "authorization-revoked.json"));

    client
        .authorizations()
        .revoke(
            "auth_01",
            AuthorizationRevokeParams.builder().revokedBy("admin_1").notes("left").build());
    client.authorizations().revoke("auth_01");

    RecordedRequest withBody = take();
    assertThat(withBody.getMethod()).isEqualTo("DELETE");
    assertThat(withBody.getTarget()).isEqualTo("/v1/authorizations/auth_01");
    assertThat(body(withBody).toString())
        .isEqualTo("{\"revoked_by\":\"admin_1\",\"notes\":\"left\"}");
    assertThat(take().getBodySize()).isZero();
  }

  @Test
  void confirmationApproveAndDeclineBodies() throws Exception {
    server.enqueue(fixture(200, "confirmation-approved.json"));
    server.enqueue(fixture(200, "confirmation-declined.json"));

    client.confirmations().approve("cn_abc", Duration.ofSeconds(120));
    client.confirmations().decline("cn_abc");

    RecordedRequest approve = take();
    assertThat(approve.getTarget()).isEqualTo("/v1/confirmations/cn_abc");
    assertThat(body(approve).toString()).isEqualTo("{\"approved\":true,\"ttl_seconds\":120}");
    assertThat(body(take()).toString()).isEqualTo("{\"approved\":false}");
  }

  @Test
  void confirmationViaIsSentOnlyWhenGiven() throws Exception {
    server.enqueue(fixture(200, "confirmation-approved.json"));
    server.enqueue(fixture(200, "confirmation-declined.json"));
    server.enqueue(fixture(200, "confirmation-approved.json"));

    client
        .confirmations()
        .approve("cn_abc", null, ConfirmationVia.MCP_ELICITATION, RequestOptions.none());
    client.confirmations().decline("cn_abc", ConfirmationVia.CONSOLE, RequestOptions.none());
    client.confirmations().approve("cn_abc", null, null, RequestOptions.none());

    assertThat(body(take()).toString())
        .isEqualTo("{\"approved\":true,\"via\":\"mcp_elicitation\"}");
    assertThat(body(take()).toString()).isEqualTo("{\"approved\":false,\"via\":\"console\"}");
    assertThat(body(take()).toString()).isEqualTo("{\"approved\":true}");
  }

  @Test
  void confirmationViaIsSentAsync() throws Exception {
    server.enqueue(fixture(200, "confirmation-approved.json"));

    client
        .async()
        .confirmations()
        .approve(
            "cn_abc",
            Duration.ofSeconds(30),
            ConfirmationVia.MCP_ELICITATION,
            RequestOptions.none())
        .get();

    assertThat(body(take()).toString())
        .isEqualTo("{\"approved\":true,\"ttl_seconds\":30,\"via\":\"mcp_elicitation\"}");
  }

  @Test
  void escalationResolveBody() throws Exception {
    server.enqueue(fixture(200, "escalation-resolved.json"));

    client
        .escalations()
        .resolve("esc_01", EscalationResolveParams.reject("approver_7").withNote("no"));

    RecordedRequest r = take();
    assertThat(r.getTarget()).isEqualTo("/v1/escalations/esc_01/resolve");
    assertThat(body(r).toString())
        .isEqualTo("{\"resolution\":\"rejected\",\"resolved_by\":\"approver_7\",\"note\":\"no\"}");
  }

  @Test
  void listFiltersBecomeQueryParameters() throws Exception {
    server.enqueue(fixture(200, "receipt-page-2.json"));
    server.enqueue(fixture(200, "authorization-page.json"));
    server.enqueue(fixture(200, "escalation-page.json"));
    server.enqueue(fixture(200, "bundle-page.json"));

    client
        .receipts()
        .list(
            ReceiptListParams.builder()
                .authorizationId("auth_01")
                .event(ReceiptEvent.AUTHORIZATION_REVOKE)
                .decision(Decision.AUTHORIZATION_REVOKED)
                .from(Instant.parse("2026-11-01T00:00:00Z"))
                .to(Instant.parse("2026-12-01T00:00:00Z"))
                .limit(10)
                .build());
    client
        .authorizations()
        .list(
            AuthorizationListParams.builder()
                .userId("u_7Hc2")
                .status(AuthorizationStatus.ACTIVE)
                .limit(5)
                .build());
    client.escalations().list(EscalationListParams.status(EscalationStatus.PENDING).withLimit(3));
    client.bundles().list(ListParams.none().withLimit(2).withCursor("c1"));

    assertThat(take().getTarget())
        .isEqualTo(
            "/v1/receipts?authorization_id=auth_01&event=authorization.revoke"
                + "&decision=authorization_revoked&from=2026-11-01T00%3A00%3A00.000Z"
                + "&to=2026-12-01T00%3A00%3A00.000Z&limit=10");
    assertThat(take().getTarget())
        .isEqualTo("/v1/authorizations?user_id=u_7Hc2&status=active&limit=5");
    assertThat(take().getTarget()).isEqualTo("/v1/escalations?status=pending&limit=3");
    assertThat(take().getTarget()).isEqualTo("/v1/agent-scope-bundles?cursor=c1&limit=2");
  }

  @Test
  void bundleCrudUsesPostGetPutDelete() throws Exception {
    for (String f : List.of("bundle.json", "bundle.json", "bundle.json", "bundle-deleted.json")) {
      server.enqueue(fixture(200, f));
    }
    BundleParams p =
        BundleParams.builder().id("support-bot-default").agentId("support-bot").scope("s").build();

    client.bundles().create(p);
    client.bundles().get("support-bot-default");
    client.bundles().edit("support-bot-default", p);
    var deleted = client.bundles().delete("support-bot-default");

    assertThat(take().getMethod()).isEqualTo("POST");
    assertThat(take().getMethod()).isEqualTo("GET");
    RecordedRequest put = take();
    assertThat(put.getMethod()).isEqualTo("PUT");
    assertThat(put.getTarget()).isEqualTo("/v1/agent-scope-bundles/support-bot-default");
    assertThat(take().getMethod()).isEqualTo("DELETE");
    assertThat(deleted.deletedAt()).isNotNull();
  }

  @Test
  void pathSegmentsAreEncodedSoIdsCannotEscapeTheirPath() throws Exception {
    server.enqueue(fixture(200, "authorization.json"));

    client.authorizations().get("../admin/v1/clock");

    assertThat(take().getTarget()).isEqualTo("/v1/authorizations/..%2Fadmin%2Fv1%2Fclock");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.authorizations().revoke(".."))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("found the path segment \"..\"");
  }
}
