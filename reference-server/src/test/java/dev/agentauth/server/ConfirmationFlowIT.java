package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.approve;
import static dev.agentauth.server.CheckFixtures.at;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.confirm;
import static dev.agentauth.server.CheckFixtures.fieldNames;
import static dev.agentauth.server.CheckFixtures.outcome;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static dev.agentauth.server.CheckFixtures.revoke;
import static dev.agentauth.server.CheckFixtures.verifiedReceipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Confirmations: the {@code confirm} result and its nonce, approval windows ({@code ttl_seconds}),
 * declines, the five-minute nonce lifetime, and the 410 for every unusable nonce.
 */
class ConfirmationFlowIT {
  private static final String CONFIRMED =
      "{\"scopes\":[{\"name\":\"email.send\"}],\"requires_confirm_for\":[\"email.send\"]}";

  private ServerHarness h;
  private String id;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
    id = authorize(h, CONFIRMED);
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private JsonNode confirmResult(String resource) {
    CheckFixtures.Check c = check(h, id, "email.send");
    if (resource != null) {
      c.resource(resource);
    }
    JsonNode r = c.result();
    assertThat(outcome(r)).isEqualTo("confirm/scope_requires_user_confirmation");
    return r;
  }

  private String nonce(String resource) {
    return confirmResult(resource).path("confirm_nonce").asText();
  }

  private String outcomeFor(String resource) {
    CheckFixtures.Check c = check(h, id, "email.send");
    if (resource != null) {
      c.resource(resource);
    }
    return c.outcome();
  }

  private static void assertGone(Resp r) {
    assertThat(r.status()).as(r.raw()).isEqualTo(410);
    assertThat(r.code()).isEqualTo("nonce_gone");
  }

  @Test
  void confirmResultCarriesNonceFiveMinuteExpiryAndPromptHint() {
    JsonNode r = confirmResult("mailbox:1");
    assertThat(fieldNames(r))
        .containsExactlyInAnyOrder(
            "decision",
            "reason",
            "receipt",
            "confirm_nonce",
            "confirm_expires_at",
            "confirm_prompt_hint");
    assertThat(r.path("confirm_nonce").asText()).hasSizeGreaterThanOrEqualTo(16);
    assertThat(r.path("confirm_expires_at").asText())
        .isEqualTo(at(ServerHarness.START.plus(Duration.ofMinutes(5))));
    assertThat(r.path("confirm_prompt_hint").asText()).isEqualTo("email.send");
    JsonNode receipt = verifiedReceipt(h, receiptId(r));
    assertThat(receipt.path("decision").asText()).isEqualTo("confirm");
    assertThat(receipt.path("reason").asText()).isEqualTo("scope_requires_user_confirmation");
    h.verifyChain(id);
  }

  @Test
  void repeatedChecksReturnTheSameNonceWhileItIsOpen() {
    String first = nonce("mailbox:1");
    h.clock.advance(Duration.ofMinutes(4));
    JsonNode again = confirmResult("mailbox:1");
    assertThat(again.path("confirm_nonce").asText()).isEqualTo(first);
    assertThat(again.path("confirm_expires_at").asText())
        .isEqualTo(at(ServerHarness.START.plus(Duration.ofMinutes(5))));
    assertThat(nonce("mailbox:2")).isNotEqualTo(first);
    assertThat(nonce(null)).isNotEqualTo(first);
    assertThat(nonce(null)).isEqualTo(nonce(null));
    h.verifyChain(id);
  }

  @Test
  void approvingOpensADefaultSixtySecondWindowForTheSameScopeAndResource() {
    String first = nonce("mailbox:1");
    h.clock.advance(Duration.ofSeconds(10));
    JsonNode approved = approve(h, first);
    assertThat(fieldNames(approved))
        .containsExactlyInAnyOrder("decision", "authorization_id", "expires_at");
    assertThat(approved.path("decision").asText()).isEqualTo("approved");
    String grant = approved.path("authorization_id").asText();
    assertThat(grant).isNotBlank().isNotEqualTo(id);
    Instant windowEnd = ServerHarness.START.plus(Duration.ofSeconds(70));
    assertThat(approved.path("expires_at").asText()).isEqualTo(at(windowEnd));

    for (int i = 0; i < 3; i++) {
      JsonNode allow = check(h, id, "email.send").resource("mailbox:1").result();
      assertThat(outcome(allow)).isEqualTo("allow/authorization_granted_via_confirmation");
      assertThat(
              verifiedReceipt(h, receiptId(allow))
                  .path("context")
                  .path("confirmation_authorization_id")
                  .asText())
          .isEqualTo(grant);
    }
    h.clock.set(windowEnd.minusMillis(1));
    assertThat(outcomeFor("mailbox:1")).isEqualTo("allow/authorization_granted_via_confirmation");
    h.clock.set(windowEnd);
    String next = nonce("mailbox:1");
    assertThat(next).isNotEqualTo(first);
    h.verifyChain(id);
  }

  @Test
  void approvalWindowDoesNotCoverOtherResources() {
    approve(h, nonce("mailbox:1"));
    assertThat(outcomeFor("mailbox:2")).isEqualTo("confirm/scope_requires_user_confirmation");
    assertThat(outcomeFor(null)).isEqualTo("confirm/scope_requires_user_confirmation");
    assertThat(outcomeFor("mailbox:1")).isEqualTo("allow/authorization_granted_via_confirmation");
    h.verifyChain(id);
  }

  @Test
  void approvalForANullResourceMatchesOnlyANullResource() {
    approve(h, nonce(null));
    assertThat(outcomeFor(null)).isEqualTo("allow/authorization_granted_via_confirmation");
    assertThat(outcomeFor("mailbox:1")).isEqualTo("confirm/scope_requires_user_confirmation");
    h.verifyChain(id);
  }

  @Test
  void ttlSecondsSetsTheWindowUpToThreeHundredSeconds() {
    JsonNode approved = confirm(h, nonce("m"), "{\"approved\":true,\"ttl_seconds\":300}").body();
    assertThat(approved.path("expires_at").asText())
        .isEqualTo(at(ServerHarness.START.plusSeconds(300)));
    h.clock.advance(Duration.ofSeconds(299));
    assertThat(outcomeFor("m")).isEqualTo("allow/authorization_granted_via_confirmation");
    h.clock.advance(Duration.ofSeconds(1));
    assertThat(outcomeFor("m")).isEqualTo("confirm/scope_requires_user_confirmation");

    JsonNode one = confirm(h, nonce("n"), "{\"approved\":true,\"ttl_seconds\":1}").body();
    assertThat(one.path("expires_at").asText()).isEqualTo(at(h.clock.instant().plusSeconds(1)));
    h.verifyChain(id);
  }

  @Test
  void invalidResolutionBodiesAre400AndLeaveTheNonceUsable() {
    String n = nonce("m");
    for (String body :
        new String[] {
          "{\"approved\":true,\"ttl_seconds\":0}",
          "{\"approved\":true,\"ttl_seconds\":301}",
          "{\"approved\":true,\"ttl_seconds\":-1}",
          "{}",
          "{\"ttl_seconds\":60}",
          "{\"approved\":\"yes\"}",
          "{\"approved\":null}"
        }) {
      Resp r = confirm(h, n, body);
      assertThat(r.status()).as(body + " -> " + r.raw()).isEqualTo(400);
      assertThat(r.code()).isEqualTo("invalid_request");
    }
    assertThat(confirm(h, n, "{\"approved\":true,\"ttl_seconds\":0}").fields())
        .containsExactly("ttl_seconds");
    assertThat(confirm(h, n, "{}").fields()).containsExactly("approved");
    assertThat(approve(h, n).path("decision").asText()).isEqualTo("approved");
    h.verifyChain(id);
  }

  @Test
  void anApprovedNonceCannotBeResolvedAgain() {
    String n = nonce("m");
    approve(h, n);
    assertGone(confirm(h, n, "{\"approved\":true}"));
    assertGone(confirm(h, n, "{\"approved\":false}"));
    h.verifyChain(id);
  }

  @Test
  void declineAnswersDeniedByUserConsumesTheNonceAndLeavesNoLastingBlock() {
    String n = nonce("m");
    Resp declined = confirm(h, n, "{\"approved\":false}");
    assertThat(declined.status()).as(declined.raw()).isEqualTo(200);
    assertThat(fieldNames(declined.body())).containsExactly("decision");
    assertThat(declined.body().path("decision").asText()).isEqualTo("denied_by_user");
    assertGone(confirm(h, n, "{\"approved\":false}"));
    assertGone(confirm(h, n, "{\"approved\":true}"));
    String fresh = nonce("m");
    assertThat(fresh).isNotEqualTo(n);
    approve(h, fresh);
    assertThat(outcomeFor("m")).isEqualTo("allow/authorization_granted_via_confirmation");
    h.verifyChain(id);
  }

  @Test
  void nonceExpiresAfterFiveMinutesAndTheNextCheckIssuesAFreshOne() {
    String n = nonce("m");
    String late = nonce("late");
    h.clock.advance(Duration.ofMinutes(5).minusMillis(1));
    approve(h, late);
    h.clock.advance(Duration.ofMillis(1));
    assertGone(confirm(h, n, "{\"approved\":true}"));
    JsonNode fresh = confirmResult("m");
    assertThat(fresh.path("confirm_nonce").asText()).isNotEqualTo(n);
    assertThat(fresh.path("confirm_expires_at").asText())
        .isEqualTo(at(h.clock.instant().plus(Duration.ofMinutes(5))));
    h.verifyChain(id);
  }

  @Test
  void ttlDoesNotExtendTheNonceLifetime() {
    String n = nonce("m");
    h.clock.advance(Duration.ofMinutes(6));
    assertGone(confirm(h, n, "{\"approved\":true,\"ttl_seconds\":300}"));
    h.verifyChain(id);
  }

  @Test
  void unknownNonceIs410() {
    assertGone(confirm(h, "cn_never_issued", "{\"approved\":true}"));
    assertGone(confirm(h, "cn_never_issued", "{\"approved\":false}"));
    h.verifyChain(id);
  }

  @Test
  void anotherWorkspacesNonceIs410AndStaysUsableInItsOwnWorkspace() {
    String n = nonce("m");
    String mine = h.apiKey();
    h.useApiKey(h.newWorkspace("ws_b", "pro"));
    assertGone(confirm(h, n, "{\"approved\":true}"));
    assertGone(confirm(h, n, "{\"approved\":false}"));
    h.useApiKey(mine);
    approve(h, n);
    assertThat(outcomeFor("m")).isEqualTo("allow/authorization_granted_via_confirmation");
    h.verifyChain(id);
  }

  @Test
  void aRevokedAuthorizationsNonceIs410() {
    String n = nonce("m");
    revoke(h, id);
    assertGone(confirm(h, n, "{\"approved\":true}"));
    assertGone(confirm(h, n, "{\"approved\":false}"));
    h.verifyChain(id);
  }

  @Test
  void revocationEndsAnOpenConfirmationWindow() {
    approve(h, nonce("m"));
    assertThat(outcomeFor("m")).isEqualTo("allow/authorization_granted_via_confirmation");
    revoke(h, id);
    assertThat(outcomeFor("m")).isEqualTo("deny/authorization_revoked");
    h.verifyChain(id);
  }

  @Test
  void confirmationResolutionIssuesNoReceipt() {
    String n = nonce("m");
    int before = h.chainIds(id).size();
    approve(h, n);
    confirm(h, nonce("other"), "{\"approved\":false}");
    assertThat(h.chainIds(id)).hasSize(before + 1); // only the second confirm result
    assertThat(h.verifyChain(id)).isEqualTo(before + 1);
  }
}
