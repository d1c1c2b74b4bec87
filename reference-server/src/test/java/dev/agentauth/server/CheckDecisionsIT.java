package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.approve;
import static dev.agentauth.server.CheckFixtures.at;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.authorizeScopes;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.fieldNames;
import static dev.agentauth.server.CheckFixtures.outcome;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static dev.agentauth.server.CheckFixtures.receiptIds;
import static dev.agentauth.server.CheckFixtures.resolveOk;
import static dev.agentauth.server.CheckFixtures.revoke;
import static dev.agentauth.server.CheckFixtures.tombstone;
import static dev.agentauth.server.CheckFixtures.verifiedReceipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.server.ServerHarness.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/check}: every row of the service spec's "Decisions and reasons" table, the
 * eleven-step evaluation order (first failing step decides), constraints, the response shape and
 * request validation.
 */
class CheckDecisionsIT {
  private ServerHarness h;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  // ---- one test per row of the decisions table

  @Test
  void allowAuthorizationGrantedScopeActiveForAnIncludedScopeWithoutConfirmStep() {
    String id = authorizeScopes(h, "email.send");
    JsonNode r = check(h, id, "email.send").result();
    assertThat(outcome(r)).isEqualTo("allow/authorization_granted_scope_active");
    assertThat(fieldNames(r)).containsExactly("decision", "reason", "receipt");
    assertThat(h.verifyChain(id)).isEqualTo(2);
  }

  @Test
  void allowAuthorizationGrantedViaConfirmationWhileTheConfirmationWindowIsActive() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\"}],\"requires_confirm_for\":[\"email.send\"]}");
    JsonNode confirm = check(h, id, "email.send").result();
    approve(h, confirm.path("confirm_nonce").asText());
    JsonNode r = check(h, id, "email.send").result();
    assertThat(outcome(r)).isEqualTo("allow/authorization_granted_via_confirmation");
    assertThat(fieldNames(r)).containsExactly("decision", "reason", "receipt");
    h.verifyChain(id);
  }

  @Test
  void allowAuthorizationGrantedViaEscalationOnceAfterApproval() {
    String id =
        authorize(
            h, "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
    JsonNode esc = check(h, id, "pay.send").result();
    resolveOk(h, esc.path("escalation_id").asText(), "approved");
    JsonNode r = check(h, id, "pay.send").result();
    assertThat(outcome(r)).isEqualTo("allow/authorization_granted_via_escalation");
    assertThat(fieldNames(r)).containsExactly("decision", "reason", "receipt");
    h.verifyChain(id);
  }

  @Test
  void denyAuthorizationNotFoundIs200WithNullUserAndAgentAndOneReceiptPerScope() {
    JsonNode body = check(h, "auth_does_not_exist", "email.send", "files.read").ok();
    assertThat(body.path("authorization_id").asText()).isEqualTo("auth_does_not_exist");
    for (String member : List.of("user_id", "agent_id", "authorization_expires_at")) {
      assertThat(body.has(member)).as(member).isTrue();
      assertThat(body.get(member).isNull()).as(member).isTrue();
    }
    assertThat(fieldNames(body.path("results"))).containsExactly("email.send", "files.read");
    Set<String> receiptIds = new HashSet<>();
    for (String scope : List.of("email.send", "files.read")) {
      JsonNode r = body.path("results").path(scope);
      assertThat(outcome(r)).isEqualTo("deny/authorization_not_found");
      JsonNode receipt = verifiedReceipt(h, receiptId(r));
      receiptIds.add(receipt.path("receipt_id").asText());
      assertThat(receipt.path("decision").asText()).isEqualTo("deny");
      assertThat(receipt.path("reason").asText()).isEqualTo("authorization_not_found");
      assertThat(receipt.path("scope").asText()).isEqualTo(scope);
      assertThat(receipt.path("authorization_id").asText()).isEqualTo("auth_does_not_exist");
      assertThat(receipt.has("user_id") && receipt.get("user_id").isNull()).isTrue();
      assertThat(receipt.has("agent_id") && receipt.get("agent_id").isNull()).isTrue();
    }
    assertThat(receiptIds).hasSize(2);
    assertThat(receiptIds(h, "authorization_id=auth_does_not_exist"))
        .containsExactlyInAnyOrderElementsOf(receiptIds);
  }

  @Test
  void denyAuthorizationRevokedAfterRevocationWithOneReceiptPerScope() {
    String id = authorizeScopes(h, "email.send", "files.read");
    revoke(h, id);
    JsonNode body = check(h, id, "email.send", "files.read").ok();
    for (String scope : List.of("email.send", "files.read")) {
      assertThat(outcome(body.path("results").path(scope))).isEqualTo("deny/authorization_revoked");
    }
    assertThat(h.verifyChain(id)).isEqualTo(4);
  }

  @Test
  void denyAuthorizationExpiredOnceTheClockReachesExpiresAt() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\"}],\"expires_at\":\"%s\"}"
                .formatted(at(ServerHarness.START.plus(Duration.ofHours(1)))));
    h.clock.advance(Duration.ofHours(1).minusMillis(1));
    assertThat(check(h, id, "email.send").outcome())
        .isEqualTo("allow/authorization_granted_scope_active");
    h.clock.advance(Duration.ofMillis(1));
    assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/authorization_expired");
    h.clock.advance(Duration.ofDays(2));
    assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/authorization_expired");
    h.verifyChain(id);
  }

  @Test
  void denyScopeNotAuthorizedForAScopeOutsideTheAuthorization() {
    String id = authorizeScopes(h, "email.send");
    JsonNode body = check(h, id, "email.send", "email.delete").ok();
    assertThat(outcome(body.path("results").path("email.send")))
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(outcome(body.path("results").path("email.delete")))
        .isEqualTo("deny/scope_not_authorized");
    assertThat(fieldNames(body.path("results").path("email.delete")))
        .containsExactly("decision", "reason", "receipt");
    h.verifyChain(id);
  }

  @Test
  void denyResourceTombstonedOnlyForTheExactTombstonedResource() {
    String id = authorizeScopes(h, "docs.read");
    tombstone(h, "doc/1");
    assertThat(check(h, id, "docs.read").resource("doc/1").outcome())
        .isEqualTo("deny/resource_tombstoned");
    assertThat(check(h, id, "docs.read").resource("doc/10").outcome())
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(check(h, id, "docs.read").resource("DOC/1").outcome())
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(check(h, id, "docs.read").outcome())
        .isEqualTo("allow/authorization_granted_scope_active");
    h.verifyChain(id);
  }

  @Test
  void denyRateLimitExceededOnceMaxPerDayAllowsHappened() {
    String id =
        authorize(
            h, "{\"scopes\":[{\"name\":\"email.send\",\"constraints\":{\"max_per_day\":2}}]}");
    assertThat(check(h, id, "email.send").outcome()).startsWith("allow/");
    assertThat(check(h, id, "email.send").outcome()).startsWith("allow/");
    assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/rate_limit_exceeded");
    h.verifyChain(id);
  }

  @Test
  void denyBudgetExceededWhenTheEstimateWouldPassTheLimit() {
    String id = authorize(h, "{\"scopes\":[{\"name\":\"llm.call\"}],\"budget_limit_micros\":1000}");
    JsonNode r = check(h, id, "llm.call").cost(1001).result();
    assertThat(outcome(r)).isEqualTo("deny/budget_exceeded");
    assertThat(r.path("budget").path("spent_after_micros").asLong()).isZero();
    h.verifyChain(id);
  }

  @Test
  void denyEscalationRejectedAfterTheApproverRejected() {
    String id =
        authorize(
            h, "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"]}");
    JsonNode esc = check(h, id, "pay.send").result();
    resolveOk(h, esc.path("escalation_id").asText(), "rejected");
    JsonNode r = check(h, id, "pay.send").result();
    assertThat(outcome(r)).isEqualTo("deny/escalation_rejected");
    assertThat(fieldNames(r)).containsExactly("decision", "reason", "receipt");
    h.verifyChain(id);
  }

  @Test
  void confirmScopeRequiresUserConfirmationForAScopeInRequiresConfirmFor() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\"},{\"name\":\"email.read\"}],"
                + "\"requires_confirm_for\":[\"email.send\"]}");
    JsonNode body = check(h, id, "email.send", "email.read").ok();
    assertThat(outcome(body.path("results").path("email.send")))
        .isEqualTo("confirm/scope_requires_user_confirmation");
    assertThat(outcome(body.path("results").path("email.read")))
        .isEqualTo("allow/authorization_granted_scope_active");
    h.verifyChain(id);
  }

  @Test
  void escalateEscalationRequiredForAScopeInRequiresEscalationFor() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"pay.send\"},{\"name\":\"pay.read\"}],"
                + "\"requires_escalation_for\":[\"pay.send\"]}");
    JsonNode body = check(h, id, "pay.send", "pay.read").ok();
    assertThat(outcome(body.path("results").path("pay.send")))
        .isEqualTo("escalate/escalation_required");
    assertThat(outcome(body.path("results").path("pay.read")))
        .isEqualTo("allow/authorization_granted_scope_active");
    h.verifyChain(id);
  }

  // ---- evaluation order: the earlier failing step wins

  @Test
  void revokedWinsOverExpired() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\"}],\"expires_at\":\"%s\"}"
                .formatted(at(ServerHarness.START.plus(Duration.ofHours(1)))));
    revoke(h, id);
    h.clock.advance(Duration.ofHours(2));
    assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/authorization_revoked");
    h.verifyChain(id);
  }

  @Test
  void rateLimitWinsOverBudgetAndCarriesNoBudgetBlock() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"llm.call\",\"constraints\":{\"max_per_day\":1}}],"
                + "\"budget_limit_micros\":100}");
    assertThat(check(h, id, "llm.call").cost(100).outcome()).startsWith("allow/");
    JsonNode r = check(h, id, "llm.call").cost(100).result();
    assertThat(outcome(r)).isEqualTo("deny/rate_limit_exceeded");
    assertThat(r.has("budget")).isFalse();
    h.verifyChain(id);
  }

  @Test
  void budgetWinsOverEscalationAndOpensNoEscalation() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"],"
                + "\"budget_limit_micros\":100}");
    JsonNode r = check(h, id, "pay.send").cost(101).result();
    assertThat(outcome(r)).isEqualTo("deny/budget_exceeded");
    assertThat(r.has("escalation")).isFalse();
    assertThat(r.has("escalation_id")).isFalse();
    Resp list = h.get("/v1/escalations");
    assertThat(list.body().path("escalations").size()).isZero();
    h.verifyChain(id);
  }

  @Test
  void budgetWinsOverConfirmationAndIssuesNoNonce() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\"}],\"requires_confirm_for\":[\"email.send\"],"
                + "\"budget_limit_micros\":100}");
    JsonNode r = check(h, id, "email.send").cost(101).result();
    assertThat(outcome(r)).isEqualTo("deny/budget_exceeded");
    assertThat(r.has("confirm_nonce")).isFalse();
    assertThat(check(h, id, "email.send").cost(100).outcome())
        .isEqualTo("confirm/scope_requires_user_confirmation");
    h.verifyChain(id);
  }

  @Test
  void escalationComesBeforeConfirmationForAScopeRequiringBoth() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"pay.send\"}],\"requires_escalation_for\":[\"pay.send\"],"
                + "\"requires_confirm_for\":[\"pay.send\"]}");
    JsonNode esc = check(h, id, "pay.send").result();
    assertThat(outcome(esc)).isEqualTo("escalate/escalation_required");
    resolveOk(h, esc.path("escalation_id").asText(), "approved");
    // Step 9 passes with the approval; step 10 still asks for the user's confirmation and the
    // approval is not consumed by a confirm result.
    JsonNode confirm = check(h, id, "pay.send").result();
    assertThat(outcome(confirm)).isEqualTo("confirm/scope_requires_user_confirmation");
    approve(h, confirm.path("confirm_nonce").asText());
    JsonNode allow = check(h, id, "pay.send").result();
    assertThat(outcome(allow)).isEqualTo("allow/authorization_granted_via_escalation");
    JsonNode receipt = verifiedReceipt(h, receiptId(allow));
    assertThat(receipt.path("context").path("escalation_id").asText())
        .isEqualTo(esc.path("escalation_id").asText());
    assertThat(receipt.path("context").has("confirmation_authorization_id")).isTrue();
    // The approval is consumed: the next check escalates again.
    assertThat(check(h, id, "pay.send").outcome()).isEqualTo("escalate/escalation_required");
    h.verifyChain(id);
  }

  // ---- constraints

  private String withPattern(String pattern) {
    ObjectNode body = h.mapper.createObjectNode();
    body.putArray("scopes")
        .addObject()
        .put("name", "docs.read")
        .putObject("constraints")
        .put("resource_pattern", pattern);
    return authorize(h, body.toString());
  }

  private String decide(String id, String resource) {
    CheckFixtures.Check c = check(h, id, "docs.read");
    if (resource != null) {
      c.resource(resource);
    }
    return c.result().path("decision").asText();
  }

  @Test
  void resourcePatternStarMatchesAnyRunIncludingSlashes() {
    String id = withPattern("docs/*");
    assertThat(decide(id, "docs/a")).isEqualTo("allow");
    assertThat(decide(id, "docs/a/b/c.txt")).isEqualTo("allow");
    assertThat(decide(id, "docs/")).isEqualTo("allow");
    assertThat(decide(id, "doc/a")).isEqualTo("deny");
    assertThat(decide(id, "xdocs/a")).isEqualTo("deny");
    String mid = withPattern("a*z");
    assertThat(decide(mid, "a/b/c/z")).isEqualTo("allow");
    assertThat(decide(mid, "az")).isEqualTo("allow");
    assertThat(decide(mid, "az/")).isEqualTo("deny");
    h.verifyChain(id);
    h.verifyChain(mid);
  }

  @Test
  void allowedInitiatorsRequireAListedContextInitiatedBy() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\",\"constraints\":"
                + "{\"allowed_initiators\":[\"user\",\"scheduler\"]}}]}");
    assertThat(check(h, id, "email.send").context("{\"initiated_by\":\"user\"}").outcome())
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(check(h, id, "email.send").context("{\"initiated_by\":\"scheduler\"}").outcome())
        .isEqualTo("allow/authorization_granted_scope_active");
    assertThat(check(h, id, "email.send").context("{\"initiated_by\":\"agent\"}").outcome())
        .isEqualTo("deny/scope_not_authorized");
    assertThat(check(h, id, "email.send").context("{\"initiated_by\":\"User\"}").outcome())
        .isEqualTo("deny/scope_not_authorized");
    assertThat(check(h, id, "email.send").context("{\"other\":\"user\"}").outcome())
        .isEqualTo("deny/scope_not_authorized");
    assertThat(check(h, id, "email.send").context("{\"initiated_by\":[\"user\"]}").outcome())
        .isEqualTo("deny/scope_not_authorized");
    assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/scope_not_authorized");
    h.verifyChain(id);
  }

  @Test
  void constraintsApplyPerScope() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"docs.read\",\"constraints\":{\"resource_pattern\":\"pub/*\"}},"
                + "{\"name\":\"docs.list\"}]}");
    JsonNode body = check(h, id, "docs.read", "docs.list").resource("priv/1").ok();
    assertThat(outcome(body.path("results").path("docs.read")))
        .isEqualTo("deny/scope_not_authorized");
    assertThat(outcome(body.path("results").path("docs.list")))
        .isEqualTo("allow/authorization_granted_scope_active");
    h.verifyChain(id);
  }

  // ---- response shape

  @Test
  void multiScopeResponseIsKeyedByScopeInRequestOrderWithOneReceiptEach() {
    String id = authorizeScopes(h, "a.first", "m.middle", "z.last");
    JsonNode body = check(h, id, "z.last", "a.first", "not.granted", "m.middle").ok();
    assertThat(fieldNames(body.path("results")))
        .containsExactly("z.last", "a.first", "not.granted", "m.middle");
    List<String> ids = new ArrayList<>();
    for (String scope : fieldNames(body.path("results"))) {
      JsonNode receipt = verifiedReceipt(h, receiptId(body.path("results").path(scope)));
      assertThat(receipt.path("scope").asText()).isEqualTo(scope);
      ids.add(receipt.path("receipt_id").asText());
    }
    assertThat(ids).doesNotHaveDuplicates().isSorted();
    assertThat(h.verifyChain(id)).isEqualTo(5);
  }

  @Test
  void responseCarriesTheAuthorizationsIdentityExpiryAndPolicyVersion() {
    String id =
        authorize(
            h, "{\"user_id\":\"u_42\",\"agent_id\":\"ag_7\",\"scopes\":[{\"name\":\"x.y\"}]}");
    JsonNode body = check(h, id, "x.y").ok();
    assertThat(fieldNames(body))
        .containsExactlyInAnyOrder(
            "authorization_id",
            "user_id",
            "agent_id",
            "authorization_expires_at",
            "policy_version",
            "results");
    assertThat(body.path("authorization_id").asText()).isEqualTo(id);
    assertThat(body.path("user_id").asText()).isEqualTo("u_42");
    assertThat(body.path("agent_id").asText()).isEqualTo("ag_7");
    assertThat(body.path("authorization_expires_at").asText()).isEqualTo(CheckFixtures.EXPIRES);
    String policy = body.path("policy_version").asText();
    assertThat(policy).matches("\\d{4}-\\d{2}-\\d{2}\\.\\d+(\\.\\d+)*");
    JsonNode receipt = verifiedReceipt(h, receiptId(body.path("results").path("x.y")));
    assertThat(receipt.path("policy_version").asText()).isEqualTo(policy);
    assertThat(receipt.path("user_id").asText()).isEqualTo("u_42");
    assertThat(receipt.path("agent_id").asText()).isEqualTo("ag_7");
    h.verifyChain(id);
  }

  // ---- request validation

  private void assertInvalid(Resp r, String field) {
    assertThat(r.status()).as(r.raw()).isEqualTo(400);
    assertThat(r.code()).isEqualTo("invalid_request");
    assertThat(r.fields()).as(r.raw()).anySatisfy(f -> assertThat(f).startsWith(field));
  }

  @Test
  void emptyScopesIs400() {
    String id = authorizeScopes(h, "email.send");
    assertInvalid(check(h, id).send(), "scopes");
    assertThat(h.verifyChain(id)).isEqualTo(1);
  }

  @Test
  void duplicateScopesIs400() {
    String id = authorizeScopes(h, "email.send");
    assertInvalid(check(h, id, "email.send", "email.send").send(), "scopes[1]");
    assertThat(h.verifyChain(id)).isEqualTo(1);
  }

  @Test
  void moreThanTwentyScopesIs400AndTwentyAreAccepted() {
    ObjectNode auth = h.mapper.createObjectNode();
    ArrayNode scopes = auth.putArray("scopes");
    String[] names = new String[21];
    for (int i = 0; i < 21; i++) {
      names[i] = "s" + i;
      scopes.addObject().put("name", names[i]);
    }
    String id = authorize(h, auth.toString());
    assertInvalid(check(h, id, names).send(), "scopes");
    String[] twenty = java.util.Arrays.copyOf(names, 20);
    assertThat(fieldNames(check(h, id, twenty).ok().path("results"))).hasSize(20);
    assertThat(h.verifyChain(id)).isEqualTo(21);
  }

  @Test
  void budgetedAuthorizationRejectsChecksWithMoreThanOneScope() {
    String id =
        authorize(
            h, "{\"scopes\":[{\"name\":\"a.b\"},{\"name\":\"c.d\"}],\"budget_limit_micros\":10}");
    assertInvalid(check(h, id, "a.b", "c.d").send(), "scopes");
    assertInvalid(check(h, id, "a.b", "c.d").cost(1).send(), "scopes");
    assertThat(h.verifyChain(id)).isEqualTo(1);
  }

  @Test
  void budgetedAuthorizationRequiresEstimatedCostEvenWhenRevokedOrExpired() {
    String active = authorize(h, "{\"scopes\":[{\"name\":\"a.b\"}],\"budget_limit_micros\":10}");
    String revoked = authorize(h, "{\"scopes\":[{\"name\":\"a.b\"}],\"budget_limit_micros\":10}");
    String expired =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"a.b\"}],\"budget_limit_micros\":10,\"expires_at\":\"%s\"}"
                .formatted(at(ServerHarness.START.plus(Duration.ofMinutes(1)))));
    revoke(h, revoked);
    h.clock.advance(Duration.ofMinutes(2));
    assertInvalid(check(h, active, "a.b").send(), "estimated_cost_micros");
    assertInvalid(check(h, revoked, "a.b").send(), "estimated_cost_micros");
    assertInvalid(check(h, expired, "a.b").send(), "estimated_cost_micros");
    assertInvalid(check(h, revoked, "a.b", "c.d").cost(1).send(), "scopes");
    assertThat(check(h, revoked, "a.b").cost(1).outcome()).isEqualTo("deny/authorization_revoked");
    JsonNode r = check(h, expired, "a.b").cost(1).result();
    assertThat(outcome(r)).isEqualTo("deny/authorization_expired");
    assertThat(r.has("budget")).isFalse();
    assertThat(h.verifyChain(active)).isEqualTo(1);
    assertThat(h.verifyChain(revoked)).isEqualTo(3);
    assertThat(h.verifyChain(expired)).isEqualTo(2);
  }

  @Test
  void estimateOnAnUnbudgetedAuthorizationIsIgnored() {
    String id = authorizeScopes(h, "a.b", "c.d");
    JsonNode r = check(h, id, "a.b").cost(5_000).result();
    assertThat(outcome(r)).isEqualTo("allow/authorization_granted_scope_active");
    assertThat(r.has("budget")).isFalse();
    assertThat(verifiedReceipt(h, receiptId(r)).path("context").has("budget")).isFalse();
    assertThat(CheckFixtures.authorization(h, id).path("budget_spent_micros").asLong()).isZero();
    // A check carrying an estimate still names exactly one scope.
    assertInvalid(check(h, id, "a.b", "c.d").cost(5_000).send(), "scopes");
    h.verifyChain(id);
  }

  @Test
  void userIdAndAgentIdAreNotAcceptedOnChecks() {
    String id = authorizeScopes(h, "a.b");
    ObjectNode body = h.json("{\"authorization_id\":\"" + id + "\",\"scopes\":[\"a.b\"]}");
    assertInvalid(h.post("/v1/check", body.deepCopy().put("user_id", "u")), "user_id");
    assertInvalid(h.post("/v1/check", body.deepCopy().put("agent_id", "a")), "agent_id");
    assertThat(h.verifyChain(id)).isEqualTo(1);
  }
}
