package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.at;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.escalation;
import static dev.agentauth.server.CheckFixtures.fieldNames;
import static dev.agentauth.server.CheckFixtures.outcome;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static dev.agentauth.server.CheckFixtures.resolve;
import static dev.agentauth.server.CheckFixtures.resolveOk;
import static dev.agentauth.server.CheckFixtures.revoke;
import static dev.agentauth.server.CheckFixtures.verifiedReceipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Escalations: the {@code escalate} result, resolution (approve, reject, repeat, conflicts, plan,
 * validation), the one-hour single-use approval, the 24-hour lifetime, and the approver-tool
 * extension ({@code GET /v1/escalations/{id}}, {@code GET /v1/escalations}).
 */
class EscalationFlowIT {
  private static final String ESCALATED =
      "{\"scopes\":[{\"name\":\"pay.send\"},{\"name\":\"pay.refund\"}],"
          + "\"requires_escalation_for\":[\"pay.send\",\"pay.refund\"],"
          + "\"escalation_targets\":{\"pay.send\":\"finance\"}}";

  private ServerHarness h;
  private String id;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
    id = authorize(h, ESCALATED);
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private JsonNode escalate(String scope, String resource) {
    CheckFixtures.Check c = check(h, id, scope);
    if (resource != null) {
      c.resource(resource);
    }
    JsonNode r = c.result();
    assertThat(outcome(r)).isEqualTo("escalate/escalation_required");
    return r;
  }

  private String escalationId(String resource) {
    return escalate("pay.send", resource).path("escalation_id").asText();
  }

  private String outcomeFor(String resource) {
    CheckFixtures.Check c = check(h, id, "pay.send");
    if (resource != null) {
      c.resource(resource);
    }
    return c.outcome();
  }

  private static void assertConflict(Resp r) {
    assertThat(r.status()).as(r.raw()).isEqualTo(409);
    assertThat(r.code()).isEqualTo("escalation_conflict");
  }

  // ---- the escalate result

  @Test
  void escalateResultCarriesThePendingEscalationWithTargetAndTwentyFourHourExpiry() {
    JsonNode r = escalate("pay.send", "inv/1");
    assertThat(fieldNames(r))
        .containsExactlyInAnyOrder(
            "decision",
            "reason",
            "receipt",
            "escalation",
            "escalation_id",
            "escalation_to",
            "escalation_expires_at");
    String expires = at(ServerHarness.START.plus(Duration.ofHours(24)));
    JsonNode e = r.path("escalation");
    assertThat(fieldNames(e))
        .containsExactlyInAnyOrder("escalation_id", "status", "escalation_to", "expires_at");
    assertThat(e.path("escalation_id").asText()).isNotBlank();
    assertThat(e.path("status").asText()).isEqualTo("pending");
    assertThat(e.path("escalation_to").asText()).isEqualTo("finance");
    assertThat(e.path("expires_at").asText()).isEqualTo(expires);
    assertThat(r.path("escalation_id").asText()).isEqualTo(e.path("escalation_id").asText());
    assertThat(r.path("escalation_to").asText()).isEqualTo("finance");
    assertThat(r.path("escalation_expires_at").asText()).isEqualTo(expires);
    JsonNode receipt = verifiedReceipt(h, receiptId(r));
    assertThat(receipt.path("decision").asText()).isEqualTo("escalate");
    assertThat(receipt.path("context").path("escalation_id").asText())
        .isEqualTo(e.path("escalation_id").asText());
    h.verifyChain(id);
  }

  @Test
  void escalationToIsAbsentFromTheResultAndNullInsideEscalationWithoutATarget() {
    JsonNode r = escalate("pay.refund", "inv/1");
    assertThat(r.has("escalation_to")).isFalse();
    assertThat(r.path("escalation").has("escalation_to")).isTrue();
    assertThat(r.path("escalation").get("escalation_to").isNull()).isTrue();
    assertThat(escalation(h, r.path("escalation_id").asText()).get("escalation_to").isNull())
        .isTrue();
    h.verifyChain(id);
  }

  @Test
  void repeatedChecksReturnTheSamePendingEscalationPerResource() {
    String first = escalationId("inv/1");
    h.clock.advance(Duration.ofHours(23));
    JsonNode again = escalate("pay.send", "inv/1");
    assertThat(again.path("escalation_id").asText()).isEqualTo(first);
    assertThat(again.path("escalation_expires_at").asText())
        .isEqualTo(at(ServerHarness.START.plus(Duration.ofHours(24))));
    assertThat(escalationId("inv/2")).isNotEqualTo(first);
    assertThat(escalationId(null)).isNotEqualTo(first).isEqualTo(escalationId(null));
    assertThat(escalate("pay.refund", "inv/1").path("escalation_id").asText()).isNotEqualTo(first);
    h.verifyChain(id);
  }

  @Test
  void aPendingEscalationPastItsLifetimeIsReplacedByANewOne() {
    String first = escalationId("inv/1");
    h.clock.advance(Duration.ofHours(24));
    String second = escalationId("inv/1");
    assertThat(second).isNotEqualTo(first);
    assertThat(escalation(h, first).path("status").asText()).isEqualTo("expired");
    assertThat(escalation(h, second).path("status").asText()).isEqualTo("pending");
    h.verifyChain(id);
  }

  // ---- approval

  @Test
  void approvalIssuesAResolveReceiptAndAllowsExactlyOneRecheck() {
    String e = escalationId("inv/1");
    h.clock.advance(Duration.ofMinutes(3));
    Resp resolved =
        h.post(
            "/v1/escalations/" + e + "/resolve",
            h.json(
                "{\"resolution\":\"approved\",\"resolved_by\":\"mgr_17\",\"note\":\"ok for Q4\"}"));
    assertThat(resolved.status()).as(resolved.raw()).isEqualTo(200);
    JsonNode body = resolved.body();
    assertThat(fieldNames(body))
        .containsExactlyInAnyOrder(
            "escalation_id", "status", "resolved_by", "resolved_at", "receipt");
    assertThat(body.path("escalation_id").asText()).isEqualTo(e);
    assertThat(body.path("status").asText()).isEqualTo("approved");
    assertThat(body.path("resolved_by").asText()).isEqualTo("mgr_17");
    assertThat(body.path("resolved_at").asText()).isEqualTo(at(h.clock.instant()));
    assertThat(body.path("receipt").path("status").asText()).isEqualTo("pending");

    JsonNode receipt = verifiedReceipt(h, body.path("receipt").path("receipt_id").asText());
    assertThat(receipt.has("scope")).isFalse();
    assertThat(receipt.path("event").asText()).isEqualTo("escalation.resolve");
    assertThat(receipt.path("decision").asText()).isEqualTo("escalation_approved");
    assertThat(receipt.path("reason").asText()).isEqualTo("escalation_approved");
    assertThat(receipt.path("resource").asText()).isEqualTo("inv/1");
    assertThat(receipt.path("authorization_id").asText()).isEqualTo(id);
    assertThat(receipt.path("user_id").asText()).isEqualTo("user_1");
    assertThat(receipt.path("agent_id").asText()).isEqualTo("agent_1");
    assertThat(receipt.path("issued_at").asText()).isEqualTo(at(h.clock.instant()));
    JsonNode ctx = receipt.path("context");
    assertThat(ctx.path("escalation_id").asText()).isEqualTo(e);
    assertThat(ctx.path("scope").asText()).isEqualTo("pay.send");
    assertThat(ctx.path("resolved_by").asText()).isEqualTo("mgr_17");
    assertThat(ctx.path("note").asText()).isEqualTo("ok for Q4");

    JsonNode allow = check(h, id, "pay.send").resource("inv/1").result();
    assertThat(outcome(allow)).isEqualTo("allow/authorization_granted_via_escalation");
    assertThat(verifiedReceipt(h, receiptId(allow)).path("context").path("escalation_id").asText())
        .isEqualTo(e);
    String next = escalationId("inv/1");
    assertThat(next).isNotEqualTo(e);
    JsonNode consumed = escalation(h, e);
    assertThat(consumed.path("status").asText()).isEqualTo("approved");
    assertThat(consumed.path("approval_consumed_at").asText()).isEqualTo(at(h.clock.instant()));
    assertThat(h.verifyChain(id)).isEqualTo(5);
  }

  @Test
  void approvalOnlyMatchesTheSameScopeAndResource() {
    String e = escalationId("inv/1");
    resolveOk(h, e, "approved");
    assertThat(outcomeFor("inv/2")).isEqualTo("escalate/escalation_required");
    assertThat(outcomeFor(null)).isEqualTo("escalate/escalation_required");
    assertThat(check(h, id, "pay.refund").resource("inv/1").outcome())
        .isEqualTo("escalate/escalation_required");
    assertThat(outcomeFor("inv/1")).isEqualTo("allow/authorization_granted_via_escalation");
    h.verifyChain(id);
  }

  @Test
  void approvalStaysUsableForOneHourAfterResolution() {
    String e = escalationId("inv/1");
    h.clock.advance(Duration.ofMinutes(10));
    resolveOk(h, e, "approved");
    Instant until = h.clock.instant().plus(Duration.ofHours(1));
    assertThat(escalation(h, e).path("approval_expires_at").asText()).isEqualTo(at(until));
    h.clock.set(until.minusMillis(1));
    assertThat(outcomeFor("inv/1")).isEqualTo("allow/authorization_granted_via_escalation");

    String other = escalationId("inv/2");
    resolveOk(h, other, "approved");
    h.clock.advance(Duration.ofHours(1));
    assertThat(outcomeFor("inv/2")).isEqualTo("escalate/escalation_required");
    assertThat(escalation(h, other).path("approval_consumed_at").isNull()).isTrue();
    h.verifyChain(id);
  }

  @Test
  void approvalWindowIsCappedByTheAuthorizationsExpiry() {
    Instant expiry = ServerHarness.START.plus(Duration.ofMinutes(30));
    String shortLived =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"],"
                + "\"expires_at\":\""
                + at(expiry)
                + "\"}");
    String e = check(h, shortLived, "pay.send").result().path("escalation_id").asText();
    resolveOk(h, e, "approved");
    assertThat(escalation(h, e).path("approval_expires_at").asText()).isEqualTo(at(expiry));
    h.clock.set(expiry);
    assertThat(check(h, shortLived, "pay.send").outcome()).isEqualTo("deny/authorization_expired");
    h.verifyChain(shortLived);
  }

  @Test
  void approvalWindowIsCappedByTheEscalationsLifetime() {
    String e = escalationId("inv/1");
    h.clock.advance(Duration.ofHours(23).plusMinutes(30));
    resolveOk(h, e, "approved");
    Instant end = ServerHarness.START.plus(Duration.ofHours(24));
    assertThat(escalation(h, e).path("approval_expires_at").asText()).isEqualTo(at(end));
    h.clock.set(end);
    assertThat(outcomeFor("inv/1")).isEqualTo("escalate/escalation_required");
    h.verifyChain(id);
  }

  @Test
  void resolveWithWaitTrueReturnsTheSignedResolveReceipt() {
    String e = escalationId("inv/1");
    Resp r =
        h.post(
            "/v1/escalations/" + e + "/resolve?wait=true",
            h.json("{\"resolution\":\"rejected\",\"resolved_by\":\"mgr_3\"}"));
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    JsonNode receipt = r.body().path("receipt");
    assertThat(receipt.has("status")).isFalse();
    assertThat(receipt.path("event").asText()).isEqualTo("escalation.resolve");
    assertThat(receipt.path("context").has("note")).isFalse();
    assertThat(h.verifier(h.workspaceId()).verify(receipt.toString()).valid()).isTrue();
    h.verifyChain(id);
  }

  // ---- rejection

  @Test
  void rejectionDeniesRechecksUntilTheTwentyFourHourLifetimeEnds() {
    String e = escalationId("inv/1");
    JsonNode body = resolveOk(h, e, "rejected");
    assertThat(body.path("status").asText()).isEqualTo("rejected");
    JsonNode receipt = verifiedReceipt(h, body.path("receipt").path("receipt_id").asText());
    assertThat(receipt.path("decision").asText()).isEqualTo("escalation_rejected");
    assertThat(receipt.path("reason").asText()).isEqualTo("escalation_rejected");
    for (int i = 0; i < 3; i++) {
      assertThat(outcomeFor("inv/1")).isEqualTo("deny/escalation_rejected");
    }
    assertThat(outcomeFor("inv/2")).isEqualTo("escalate/escalation_required");
    h.clock.set(ServerHarness.START.plus(Duration.ofHours(24)).minusMillis(1));
    assertThat(outcomeFor("inv/1")).isEqualTo("deny/escalation_rejected");
    h.clock.advance(Duration.ofMillis(1));
    String fresh = escalationId("inv/1");
    assertThat(fresh).isNotEqualTo(e);
    assertThat(escalation(h, e).path("status").asText()).isEqualTo("rejected");
    h.verifyChain(id);
  }

  // ---- resolving again, conflicts

  @Test
  void resolvingAgainWithTheSameResolutionAnswers200WithNullReceipt() {
    for (String resolution : List.of("approved", "rejected")) {
      String e = escalationId(resolution);
      JsonNode first = resolveOk(h, e, resolution);
      h.clock.advance(Duration.ofMinutes(1));
      int chain = h.chainIds(id).size();
      Resp again = resolve(h, e, resolution, "someone_else");
      assertThat(again.status()).as(again.raw()).isEqualTo(200);
      assertThat(again.body().has("receipt")).isTrue();
      assertThat(again.body().get("receipt").isNull()).isTrue();
      assertThat(again.body().path("status").asText()).isEqualTo(resolution);
      assertThat(again.body().path("resolved_by").asText()).isEqualTo("approver_7");
      assertThat(again.body().path("resolved_at").asText())
          .isEqualTo(first.path("resolved_at").asText());
      assertThat(h.chainIds(id)).hasSize(chain);
    }
    h.verifyChain(id);
  }

  @Test
  void resolvingWithTheOtherResolutionIs409() {
    String approved = escalationId("a");
    resolveOk(h, approved, "approved");
    assertConflict(resolve(h, approved, "rejected", "mgr_1"));
    String rejected = escalationId("r");
    resolveOk(h, rejected, "rejected");
    assertConflict(resolve(h, rejected, "approved", "mgr_1"));
    assertThat(outcomeFor("a")).isEqualTo("allow/authorization_granted_via_escalation");
    assertThat(outcomeFor("r")).isEqualTo("deny/escalation_rejected");
    h.verifyChain(id);
  }

  @Test
  void resolvingAfterTheApprovalWasConsumedIs409() {
    String e = escalationId("inv/1");
    resolveOk(h, e, "approved");
    assertThat(outcomeFor("inv/1")).isEqualTo("allow/authorization_granted_via_escalation");
    assertConflict(resolve(h, e, "approved", "mgr_1"));
    assertConflict(resolve(h, e, "rejected", "mgr_1"));
    h.verifyChain(id);
  }

  @Test
  void resolvingAnExpiredEscalationIs409() {
    String e = escalationId("inv/1");
    h.clock.advance(Duration.ofHours(24));
    assertConflict(resolve(h, e, "approved", "mgr_1"));
    assertConflict(resolve(h, e, "rejected", "mgr_1"));
    assertThat(escalation(h, e).path("status").asText()).isEqualTo("expired");
    assertThat(h.verifyChain(id)).isEqualTo(2);
  }

  @Test
  void resolvingWhenTheAuthorizationIsRevokedIs409() {
    String pending = escalationId("p");
    String approved = escalationId("a");
    resolveOk(h, approved, "approved");
    revoke(h, id);
    assertConflict(resolve(h, pending, "approved", "mgr_1"));
    assertConflict(resolve(h, approved, "approved", "mgr_1"));
    assertThat(outcomeFor("a")).isEqualTo("deny/authorization_revoked");
    h.verifyChain(id);
  }

  @Test
  void revocationEndsPendingEscalationsSoApproverToolsStopListingThem() {
    String pending = escalationId("p");
    String approved = escalationId("a");
    String rejected = escalationId("r");
    resolveOk(h, approved, "approved");
    resolveOk(h, rejected, "rejected");
    h.clock.advance(Duration.ofHours(23));
    String late = escalationId("late"); // opened an hour before revocation, still pending
    String lateExpiry = escalation(h, late).path("expires_at").asText();
    h.clock.advance(Duration.ofHours(1)); // "p", "a" and "r" are past their 24 hours
    String pendingExpiry = escalation(h, pending).path("expires_at").asText();
    assertThat(listIds("&status=pending")).containsExactly(late);

    Resp revocation = h.delete("/v1/authorizations/" + id);
    assertThat(revocation.status()).as(revocation.raw()).isEqualTo(200);
    String revokedAt = revocation.body().path("revoked_at").asText();
    assertThat(revokedAt).isNotEmpty();

    JsonNode ended = escalation(h, late);
    assertThat(ended.path("status").asText()).isEqualTo("expired");
    assertThat(ended.path("expires_at").asText()).isEqualTo(revokedAt).isNotEqualTo(lateExpiry);
    assertThat(escalation(h, pending).path("status").asText()).isEqualTo("expired");
    assertThat(escalation(h, pending).path("expires_at").asText()).isEqualTo(pendingExpiry);
    assertThat(escalation(h, approved).path("status").asText()).isEqualTo("approved");
    assertThat(escalation(h, rejected).path("status").asText()).isEqualTo("rejected");
    assertThat(listIds("&status=pending")).isEmpty();
    assertThat(listIds("&status=expired")).contains(late, pending);
    Resp r = resolve(h, late, "approved", "mgr_1");
    assertConflict(r);
    assertThat(r.raw()).contains("its authorization was revoked");
    assertThat(escalation(h, late).path("status").asText()).isEqualTo("expired");
    h.verifyChain(id);
  }

  @Test
  void unknownOrOtherWorkspacesEscalationIs404() {
    String e = escalationId("inv/1");
    Resp unknown = resolve(h, "esc_unknown", "approved", "mgr_1");
    assertThat(unknown.status()).as(unknown.raw()).isEqualTo(404);
    assertThat(unknown.code()).isEqualTo("not_found");
    String mine = h.apiKey();
    h.useApiKey(h.newWorkspace("ws_b", "pro"));
    Resp other = resolve(h, e, "approved", "mgr_1");
    assertThat(other.status()).as(other.raw()).isEqualTo(404);
    assertThat(other.code()).isEqualTo("not_found");
    h.useApiKey(mine);
    assertThat(escalation(h, e).path("status").asText()).isEqualTo("pending");
    h.verifyChain(id);
  }

  @Test
  void resolutionOnAFreePlanIs402() {
    String e = escalationId("inv/1");
    String mine = h.apiKey();
    h.useApiKey(h.newWorkspace("ws_free", "free"));
    for (String target : List.of(e, "esc_unknown")) {
      Resp r = resolve(h, target, "approved", "mgr_1");
      assertThat(r.status()).as(r.raw()).isEqualTo(402);
      assertThat(r.code()).isEqualTo("plan_required");
    }
    h.useApiKey(mine);
    assertThat(escalation(h, e).path("status").asText()).isEqualTo("pending");
    h.verifyChain(id);
  }

  @Test
  void invalidResolveBodiesAre400AndChangeNothing() {
    String e = escalationId("inv/1");
    String path = "/v1/escalations/" + e + "/resolve";
    String[][] invalid = {
      {"{\"resolution\":\"maybe\",\"resolved_by\":\"mgr_1\"}", "resolution"},
      {"{\"resolution\":\"APPROVED\",\"resolved_by\":\"mgr_1\"}", "resolution"},
      {"{\"resolved_by\":\"mgr_1\"}", "resolution"},
      {"{\"resolution\":\"approved\"}", "resolved_by"},
      {"{\"resolution\":\"approved\",\"resolved_by\":\"\"}", "resolved_by"},
      {
        "{\"resolution\":\"approved\",\"resolved_by\":\"mgr_1\",\"note\":\""
            + "n".repeat(2001)
            + "\"}",
        "note"
      },
      {"{\"resolution\":\"approved\",\"resolved_by\":\"mgr_1\",\"extra\":1}", "extra"},
    };
    for (String[] c : invalid) {
      Resp r = h.post(path, h.json(c[0]));
      assertThat(r.status()).as(c[0] + " -> " + r.raw()).isEqualTo(400);
      assertThat(r.code()).isEqualTo("invalid_request");
      assertThat(r.fields()).as(r.raw()).contains(c[1]);
    }
    for (String pii : List.of("jane.doe@example.com", "+14155550123", "(415) 555-0123")) {
      Resp r = resolve(h, e, "approved", pii);
      assertThat(r.status()).as(pii + " -> " + r.raw()).isEqualTo(400);
      assertThat(r.code()).isEqualTo("pii_not_allowed");
    }
    assertThat(escalation(h, e).path("status").asText()).isEqualTo("pending");
    assertThat(h.chainIds(id)).hasSize(2);
    resolveOk(h, e, "approved");
    assertThat(h.verifyChain(id)).isEqualTo(3);
  }

  // ---- GET and list

  @Test
  void getEscalationShowsItsWholeLifecycle() {
    String e = escalationId("inv/1");
    JsonNode pending = escalation(h, e);
    assertThat(fieldNames(pending))
        .containsExactlyInAnyOrder(
            "escalation_id",
            "authorization_id",
            "scope",
            "resource",
            "status",
            "escalation_to",
            "created_at",
            "expires_at",
            "resolved_by",
            "resolved_at",
            "note",
            "approval_expires_at",
            "approval_consumed_at");
    assertThat(pending.path("escalation_id").asText()).isEqualTo(e);
    assertThat(pending.path("authorization_id").asText()).isEqualTo(id);
    assertThat(pending.path("scope").asText()).isEqualTo("pay.send");
    assertThat(pending.path("resource").asText()).isEqualTo("inv/1");
    assertThat(pending.path("status").asText()).isEqualTo("pending");
    assertThat(pending.path("escalation_to").asText()).isEqualTo("finance");
    assertThat(pending.path("created_at").asText()).isEqualTo(at(ServerHarness.START));
    assertThat(pending.path("expires_at").asText())
        .isEqualTo(at(ServerHarness.START.plus(Duration.ofHours(24))));
    for (String m :
        List.of(
            "resolved_by", "resolved_at", "note", "approval_expires_at", "approval_consumed_at")) {
      assertThat(pending.get(m).isNull()).as(m).isTrue();
    }
    h.clock.advance(Duration.ofMinutes(5));
    h.post(
        "/v1/escalations/" + e + "/resolve",
        h.json("{\"resolution\":\"approved\",\"resolved_by\":\"mgr_2\",\"note\":\"fine\"}"));
    JsonNode approved = escalation(h, e);
    assertThat(approved.path("status").asText()).isEqualTo("approved");
    assertThat(approved.path("resolved_by").asText()).isEqualTo("mgr_2");
    assertThat(approved.path("resolved_at").asText()).isEqualTo(at(h.clock.instant()));
    assertThat(approved.path("note").asText()).isEqualTo("fine");
    assertThat(approved.path("approval_expires_at").asText())
        .isEqualTo(at(h.clock.instant().plus(Duration.ofHours(1))));
    assertThat(approved.get("approval_consumed_at").isNull()).isTrue();
    h.clock.advance(Duration.ofMinutes(1));
    outcomeFor("inv/1");
    assertThat(escalation(h, e).path("approval_consumed_at").asText())
        .isEqualTo(at(h.clock.instant()));
    Resp unknown = h.get("/v1/escalations/esc_unknown");
    assertThat(unknown.status()).isEqualTo(404);
    h.verifyChain(id);
  }

  private List<String> listIds(String query) {
    List<String> ids = new ArrayList<>();
    String cursor = null;
    do {
      Resp r =
          h.get("/v1/escalations?limit=2" + query + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      assertThat(fieldNames(r.body())).containsExactly("escalations", "has_more", "next_cursor");
      assertThat(r.body().path("escalations").size()).isLessThanOrEqualTo(2);
      r.body().path("escalations").forEach(e -> ids.add(e.path("escalation_id").asText()));
      cursor = r.body().path("has_more").asBoolean() ? r.body().path("next_cursor").asText() : null;
      if (cursor == null) {
        assertThat(r.body().get("next_cursor").isNull()).isTrue();
      }
    } while (cursor != null);
    return ids;
  }

  @Test
  void listEscalationsFiltersByStatusAndPaginates() {
    String expired = escalationId("r0");
    h.clock.advance(Duration.ofHours(12));
    String approved = escalationId("r1");
    String rejected = escalationId("r2");
    String pending1 = escalationId("r3");
    String pending2 = escalationId("r4");
    resolveOk(h, approved, "approved");
    resolveOk(h, rejected, "rejected");
    h.clock.advance(Duration.ofHours(12)); // r0 reaches its 24 hours

    assertThat(listIds(""))
        .containsExactlyInAnyOrder(expired, approved, rejected, pending1, pending2);
    assertThat(listIds("&status=pending")).containsExactlyInAnyOrder(pending1, pending2);
    assertThat(listIds("&status=approved")).containsExactly(approved);
    assertThat(listIds("&status=rejected")).containsExactly(rejected);
    assertThat(listIds("&status=expired")).containsExactly(expired);

    Resp page = h.get("/v1/escalations?status=pending&limit=1");
    assertThat(page.body().path("has_more").asBoolean()).isTrue();
    String cursor = page.body().path("next_cursor").asText();
    Resp reused = h.get("/v1/escalations?status=approved&limit=1&cursor=" + cursor);
    assertThat(reused.status()).as(reused.raw()).isEqualTo(400);
    assertThat(h.get("/v1/escalations?status=done").status()).isEqualTo(400);
    assertThat(h.get("/v1/escalations?limit=0").status()).isEqualTo(400);
    assertThat(h.get("/v1/escalations?limit=101").status()).isEqualTo(400);
    assertThat(h.get("/v1/escalations?cursor=not-a-cursor").status()).isEqualTo(400);
    h.verifyChain(id);
  }
}
