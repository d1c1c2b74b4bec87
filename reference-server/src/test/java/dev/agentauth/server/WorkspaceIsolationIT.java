package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.approve;
import static dev.agentauth.server.CheckFixtures.authorization;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.confirm;
import static dev.agentauth.server.CheckFixtures.enc;
import static dev.agentauth.server.CheckFixtures.escalation;
import static dev.agentauth.server.CheckFixtures.outcome;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static dev.agentauth.server.CheckFixtures.receiptIds;
import static dev.agentauth.server.CheckFixtures.resolve;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import dev.agentauth.verifier.VerificationResult;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every identifier of workspace A is invisible from workspace B: authorizations, checks,
 * escalations, confirmation nonces, bundles and receipts answer as if they did not exist, and
 * nothing B does changes A's state.
 */
class WorkspaceIsolationIT {
  private ServerHarness h;
  private String keyA;
  private String keyB;
  private String auth;
  private String nonce;
  private String escalationId;
  private String receipt;
  private int chainLength;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
    keyA = h.apiKey();
    auth =
        authorize(
            h,
            "{\"user_id\":\"u_iso\",\"scopes\":[{\"name\":\"email.send\"},{\"name\":\"pay.send\"},"
                + "{\"name\":\"doc.read\"}],\"requires_confirm_for\":[\"email.send\"],"
                + "\"requires_escalation_for\":[\"pay.send\"]}");
    nonce = check(h, auth, "email.send").resource("m/1").result().path("confirm_nonce").asText();
    escalationId =
        check(h, auth, "pay.send").resource("inv/1").result().path("escalation_id").asText();
    receipt = receiptId(check(h, auth, "doc.read").resource("d/1").session("sess_iso").result());
    Resp bundle =
        h.post(
            "/v1/agent-scope-bundles",
            h.json(
                "{\"id\":\"bundle_iso\",\"agent_id\":\"agent_1\",\"scopes\":[{\"name\":\"doc.read\"}]}"));
    assertThat(bundle.status()).as(bundle.raw()).isEqualTo(201);
    chainLength = h.chainIds(auth).size();
    keyB = h.newWorkspace("ws_b", "pro");
    h.useApiKey(keyB);
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private static void assertNotFound(Resp r) {
    assertThat(r.status()).as(r.raw()).isEqualTo(404);
    assertThat(r.code()).isEqualTo("not_found");
  }

  /** Switches back to A and checks that B changed nothing there. */
  private void assertAUnchanged() {
    h.useApiKey(keyA);
    assertThat(authorization(h, auth).path("status").asText()).isEqualTo("active");
    assertThat(escalation(h, escalationId).path("status").asText()).isEqualTo("pending");
    assertThat(h.verifyChain(auth)).isEqualTo(chainLength);
  }

  @Test
  void anotherWorkspacesAuthorizationCannotBeReadOrRevoked() {
    assertNotFound(h.get("/v1/authorizations/" + auth));
    assertNotFound(h.delete("/v1/authorizations/" + auth));
    assertThat(h.get("/v1/authorizations?user_id=u_iso").body().path("authorizations").size())
        .isZero();
    assertAUnchanged();
  }

  @Test
  void checkingAnotherWorkspacesAuthorizationIsAuthorizationNotFound() {
    JsonNode body = check(h, auth, "doc.read", "email.send").resource("d/1").ok();
    assertThat(body.get("user_id").isNull()).isTrue();
    assertThat(body.get("agent_id").isNull()).isTrue();
    for (String scope : List.of("doc.read", "email.send")) {
      JsonNode r = body.path("results").path(scope);
      assertThat(outcome(r)).isEqualTo("deny/authorization_not_found");
      JsonNode signed = h.signedReceipt(receiptId(r));
      assertThat(signed.path("workspace_id").asText()).isEqualTo("ws_b");
      assertThat(signed.get("user_id").isNull()).isTrue();
      VerificationResult inB = h.verifier("ws_b").verify(signed.toString());
      assertThat(inB.valid()).as(inB.toString()).isTrue();
      // Bound to its workspace: A's published keys do not accept it.
      assertThat(h.verifier(h.workspaceId()).verify(signed.toString()).valid()).isFalse();
    }
    assertThat(receiptIds(h, "authorization_id=" + auth)).hasSize(2);
    assertAUnchanged();
  }

  @Test
  void anotherWorkspacesEscalationCannotBeReadListedOrResolved() {
    assertNotFound(h.get("/v1/escalations/" + escalationId));
    assertNotFound(resolve(h, escalationId, "approved", "mgr_b"));
    assertNotFound(resolve(h, escalationId, "rejected", "mgr_b"));
    assertThat(h.get("/v1/escalations").body().path("escalations").size()).isZero();
    assertThat(h.get("/v1/escalations?status=pending").body().path("escalations").size()).isZero();
    assertAUnchanged();
  }

  @Test
  void anotherWorkspacesNonceIsGoneAndStaysUsableInItsOwnWorkspace() {
    for (String body : List.of("{\"approved\":true}", "{\"approved\":false}")) {
      Resp r = confirm(h, nonce, body);
      assertThat(r.status()).as(r.raw()).isEqualTo(410);
      assertThat(r.code()).isEqualTo("nonce_gone");
    }
    assertAUnchanged();
    approve(h, nonce);
    assertThat(check(h, auth, "email.send").resource("m/1").outcome())
        .isEqualTo("allow/authorization_granted_via_confirmation");
    h.verifyChain(auth);
  }

  @Test
  void anotherWorkspacesBundleCannotBeReadOrUsed() {
    assertNotFound(h.get("/v1/agent-scope-bundles/bundle_iso"));
    assertThat(h.get("/v1/agent-scope-bundles").body().path("bundles").size()).isZero();
    Resp create =
        h.post(
            "/v1/authorizations",
            h.json(
                "{\"user_id\":\"u\",\"bundle_id\":\"bundle_iso\",\"expires_at\":\""
                    + CheckFixtures.EXPIRES
                    + "\"}"));
    assertThat(create.status()).as(create.raw()).isEqualTo(400);
    assertThat(create.code()).isEqualTo("bundle_not_found");
    assertAUnchanged();
    assertThat(h.get("/v1/agent-scope-bundles/bundle_iso").status()).isEqualTo(200);
  }

  @Test
  void anotherWorkspacesReceiptsCannotBeReadOrListed() {
    assertNotFound(h.get("/v1/receipts/" + receipt));
    for (String query :
        List.of(
            "authorization_id=" + auth,
            "user_id=u_iso",
            "resource=" + enc("d/1"),
            "session_id=sess_iso",
            "scope=doc.read",
            "event=authorization.create",
            "decision=escalate",
            "")) {
      assertThat(receiptIds(h, query)).as(query).isEmpty();
    }
    assertAUnchanged();
    assertThat(h.get("/v1/receipts/" + receipt).status()).isEqualTo(200);
  }
}
