package dev.agentauth.server;

import static dev.agentauth.server.CheckFixtures.approve;
import static dev.agentauth.server.CheckFixtures.authorization;
import static dev.agentauth.server.CheckFixtures.authorize;
import static dev.agentauth.server.CheckFixtures.check;
import static dev.agentauth.server.CheckFixtures.outcome;
import static dev.agentauth.server.CheckFixtures.receiptId;
import static dev.agentauth.server.CheckFixtures.resolveOk;
import static dev.agentauth.server.CheckFixtures.revoke;
import static dev.agentauth.server.CheckFixtures.tombstone;
import static dev.agentauth.server.CheckFixtures.verifiedReceipt;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code max_per_day} (only allows count, per authorization + scope + UTC day, whatever produced
 * the allow) and the budget (the {@code budget} block, when spend grows, the {@code spent +
 * estimated > limit} boundary).
 */
class RateLimitAndBudgetIT {
  private ServerHarness h;

  @BeforeEach
  void start() {
    h = ServerHarness.start();
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private static String limited(String scope, int maxPerDay, String extra) {
    return "{\"scopes\":[{\"name\":\""
        + scope
        + "\",\"constraints\":{\"max_per_day\":"
        + maxPerDay
        + "}}]"
        + (extra.isEmpty() ? "" : "," + extra)
        + "}";
  }

  // ---- max_per_day

  @Test
  void maxPerDayAllowsExactlyThatManyAllowsThenDenies() {
    String id = authorize(h, limited("email.send", 3, ""));
    for (int i = 0; i < 3; i++) {
      assertThat(check(h, id, "email.send").outcome())
          .isEqualTo("allow/authorization_granted_scope_active");
    }
    for (int i = 0; i < 3; i++) {
      assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/rate_limit_exceeded");
    }
    assertThat(h.verifyChain(id)).isEqualTo(7);
  }

  @Test
  void denyResultsDoNotConsumeTheDailyCounter() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"docs.read\",\"constraints\":"
                + "{\"max_per_day\":2,\"resource_pattern\":\"pub/*\"}}]}");
    for (int i = 0; i < 5; i++) {
      assertThat(check(h, id, "docs.read").resource("priv/" + i).outcome())
          .isEqualTo("deny/scope_not_authorized");
    }
    tombstone(h, "pub/gone");
    for (int i = 0; i < 3; i++) {
      assertThat(check(h, id, "docs.read").resource("pub/gone").outcome())
          .isEqualTo("deny/resource_tombstoned");
    }
    assertThat(check(h, id, "docs.read").resource("pub/1").outcome()).startsWith("allow/");
    assertThat(check(h, id, "docs.read").resource("pub/2").outcome()).startsWith("allow/");
    assertThat(check(h, id, "docs.read").resource("pub/3").outcome())
        .isEqualTo("deny/rate_limit_exceeded");
    h.verifyChain(id);
  }

  @Test
  void confirmAndEscalateResultsDoNotConsumeTheDailyCounter() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\",\"constraints\":{\"max_per_day\":1}},"
                + "{\"name\":\"pay.send\",\"constraints\":{\"max_per_day\":1}}],"
                + "\"requires_confirm_for\":[\"email.send\"],"
                + "\"requires_escalation_for\":[\"pay.send\"]}");
    JsonNode confirm = null;
    JsonNode escalate = null;
    for (int i = 0; i < 4; i++) {
      confirm = check(h, id, "email.send").result();
      assertThat(outcome(confirm)).isEqualTo("confirm/scope_requires_user_confirmation");
      escalate = check(h, id, "pay.send").result();
      assertThat(outcome(escalate)).isEqualTo("escalate/escalation_required");
    }
    approve(h, confirm.path("confirm_nonce").asText());
    resolveOk(h, escalate.path("escalation_id").asText(), "approved");
    assertThat(check(h, id, "email.send").outcome())
        .isEqualTo("allow/authorization_granted_via_confirmation");
    assertThat(check(h, id, "pay.send").outcome())
        .isEqualTo("allow/authorization_granted_via_escalation");
    h.verifyChain(id);
  }

  @Test
  void allowsViaConfirmationAreCountedEvenInsideTheConfirmationWindow() {
    String id = authorize(h, limited("email.send", 2, "\"requires_confirm_for\":[\"email.send\"]"));
    JsonNode confirm = check(h, id, "email.send").result();
    approve(h, confirm.path("confirm_nonce").asText());
    assertThat(check(h, id, "email.send").outcome())
        .isEqualTo("allow/authorization_granted_via_confirmation");
    assertThat(check(h, id, "email.send").outcome())
        .isEqualTo("allow/authorization_granted_via_confirmation");
    assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/rate_limit_exceeded");
    h.verifyChain(id);
  }

  @Test
  void allowsViaEscalationAreCountedAndAReachedLimitLeavesTheApprovalUnconsumed() {
    String id = authorize(h, limited("pay.send", 1, "\"requires_escalation_for\":[\"pay.send\"]"));
    h.clock.advance(Duration.ofHours(13).plusMinutes(30)); // 23:30 UTC
    String first =
        check(h, id, "pay.send").resource("inv/1").result().path("escalation_id").asText();
    String second =
        check(h, id, "pay.send").resource("inv/2").result().path("escalation_id").asText();
    resolveOk(h, first, "approved");
    resolveOk(h, second, "approved");
    assertThat(check(h, id, "pay.send").resource("inv/1").outcome())
        .isEqualTo("allow/authorization_granted_via_escalation");
    assertThat(check(h, id, "pay.send").resource("inv/2").outcome())
        .isEqualTo("deny/rate_limit_exceeded");
    assertThat(CheckFixtures.escalation(h, second).path("approval_consumed_at").isNull()).isTrue();
    // After midnight UTC the counter is fresh and the approval (valid until 00:30) is consumed.
    h.clock.advance(Duration.ofMinutes(31));
    assertThat(check(h, id, "pay.send").resource("inv/2").outcome())
        .isEqualTo("allow/authorization_granted_via_escalation");
    assertThat(CheckFixtures.escalation(h, second).path("approval_consumed_at").asText())
        .isEqualTo(CheckFixtures.at(h.clock.instant()));
    h.verifyChain(id);
  }

  @Test
  void dailyCounterResetsAtUtcMidnight() {
    String id = authorize(h, limited("email.send", 1, ""));
    assertThat(check(h, id, "email.send").outcome()).startsWith("allow/");
    assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/rate_limit_exceeded");
    // START is 10:00 UTC: 14 hours later is midnight UTC.
    h.clock.advance(Duration.ofHours(14).minusMillis(1));
    assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/rate_limit_exceeded");
    h.clock.advance(Duration.ofMillis(1));
    assertThat(check(h, id, "email.send").outcome()).startsWith("allow/");
    assertThat(check(h, id, "email.send").outcome()).isEqualTo("deny/rate_limit_exceeded");
    h.clock.advance(Duration.ofDays(1));
    assertThat(check(h, id, "email.send").outcome()).startsWith("allow/");
    h.verifyChain(id);
  }

  @Test
  void dailyCounterIsPerAuthorizationAndPerScope() {
    String body =
        "{\"scopes\":[{\"name\":\"a.one\",\"constraints\":{\"max_per_day\":1}},"
            + "{\"name\":\"a.two\",\"constraints\":{\"max_per_day\":1}}]}";
    String first = authorize(h, body);
    String second = authorize(h, body);
    JsonNode both = check(h, first, "a.one", "a.two").ok().path("results");
    assertThat(outcome(both.path("a.one"))).startsWith("allow/");
    assertThat(outcome(both.path("a.two"))).startsWith("allow/");
    assertThat(check(h, first, "a.one").outcome()).isEqualTo("deny/rate_limit_exceeded");
    assertThat(check(h, first, "a.two").outcome()).isEqualTo("deny/rate_limit_exceeded");
    assertThat(check(h, second, "a.one").outcome()).startsWith("allow/");
    h.verifyChain(first);
    h.verifyChain(second);
  }

  // ---- budget

  private static String budgeted(long limit, String extra) {
    return "{\"scopes\":[{\"name\":\"llm.call\"}],\"budget_limit_micros\":"
        + limit
        + (extra.isEmpty() ? "" : "," + extra)
        + "}";
  }

  private static void assertBudget(JsonNode r, long limit, long spent, long est, long after) {
    JsonNode b = r.path("budget");
    assertThat(CheckFixtures.fieldNames(b))
        .containsExactlyInAnyOrder(
            "limit_micros", "spent_micros", "estimated_cost_micros", "spent_after_micros");
    assertThat(b.path("limit_micros").asLong()).isEqualTo(limit);
    assertThat(b.path("spent_micros").asLong()).isEqualTo(spent);
    assertThat(b.path("estimated_cost_micros").asLong()).isEqualTo(est);
    assertThat(b.path("spent_after_micros").asLong()).isEqualTo(after);
    for (String member : CheckFixtures.fieldNames(b)) {
      assertThat(b.get(member).isIntegralNumber()).as(member).isTrue();
    }
  }

  private long spent(String id) {
    return authorization(h, id).path("budget_spent_micros").asLong();
  }

  @Test
  void allowCarriesBudgetBlockWithSpentAfterEqualToSpentPlusEstimate() {
    String id = authorize(h, budgeted(1_000, ""));
    JsonNode first = check(h, id, "llm.call").cost(300).result();
    assertThat(outcome(first)).isEqualTo("allow/authorization_granted_scope_active");
    assertBudget(first, 1_000, 0, 300, 300);
    assertThat(spent(id)).isEqualTo(300);
    JsonNode second = check(h, id, "llm.call").cost(250).result();
    assertBudget(second, 1_000, 300, 250, 550);
    assertThat(spent(id)).isEqualTo(550);
    JsonNode receipt = verifiedReceipt(h, receiptId(second));
    assertThat(receipt.path("context").path("budget")).isEqualTo(second.path("budget"));
    h.verifyChain(id);
  }

  @Test
  void spendingExactlyUpToTheLimitIsAllowedAndOneMoreMicroIsNot() {
    String id = authorize(h, budgeted(1_000, ""));
    assertBudget(check(h, id, "llm.call").cost(1_000).result(), 1_000, 0, 1_000, 1_000);
    JsonNode zero = check(h, id, "llm.call").cost(0).result();
    assertThat(outcome(zero)).isEqualTo("allow/authorization_granted_scope_active");
    assertBudget(zero, 1_000, 1_000, 0, 1_000);
    JsonNode over = check(h, id, "llm.call").cost(1).result();
    assertThat(outcome(over)).isEqualTo("deny/budget_exceeded");
    assertBudget(over, 1_000, 1_000, 1, 1_000);
    assertThat(spent(id)).isEqualTo(1_000);
    h.verifyChain(id);
  }

  @Test
  void budgetExceededCarriesSpentAfterEqualToSpentAndSpendsNothing() {
    String id = authorize(h, budgeted(500, ""));
    check(h, id, "llm.call").cost(200).result();
    JsonNode over = check(h, id, "llm.call").cost(301).result();
    assertThat(outcome(over)).isEqualTo("deny/budget_exceeded");
    assertBudget(over, 500, 200, 301, 200);
    assertThat(spent(id)).isEqualTo(200);
    JsonNode fits = check(h, id, "llm.call").cost(300).result();
    assertBudget(fits, 500, 200, 300, 500);
    JsonNode receipt = verifiedReceipt(h, receiptId(over));
    assertThat(receipt.path("context").path("budget")).isEqualTo(over.path("budget"));
    h.verifyChain(id);
  }

  @Test
  void confirmAndEscalateCarryTheBudgetBlockWithoutSpending() {
    String id =
        authorize(
            h,
            "{\"scopes\":[{\"name\":\"email.send\"},{\"name\":\"pay.send\"}],"
                + "\"requires_confirm_for\":[\"email.send\"],"
                + "\"requires_escalation_for\":[\"pay.send\"],\"budget_limit_micros\":1000}");
    JsonNode confirm = check(h, id, "email.send").cost(100).result();
    assertThat(outcome(confirm)).isEqualTo("confirm/scope_requires_user_confirmation");
    assertBudget(confirm, 1000, 0, 100, 0);
    JsonNode escalate = check(h, id, "pay.send").cost(200).result();
    assertThat(outcome(escalate)).isEqualTo("escalate/escalation_required");
    assertBudget(escalate, 1000, 0, 200, 0);
    assertThat(spent(id)).isZero();

    approve(h, confirm.path("confirm_nonce").asText());
    JsonNode viaConfirm = check(h, id, "email.send").cost(100).result();
    assertThat(outcome(viaConfirm)).isEqualTo("allow/authorization_granted_via_confirmation");
    assertBudget(viaConfirm, 1000, 0, 100, 100);
    resolveOk(h, escalate.path("escalation_id").asText(), "approved");
    JsonNode viaEscalation = check(h, id, "pay.send").cost(200).result();
    assertThat(outcome(viaEscalation)).isEqualTo("allow/authorization_granted_via_escalation");
    assertBudget(viaEscalation, 1000, 100, 200, 300);
    assertThat(spent(id)).isEqualTo(300);
    h.verifyChain(id);
  }

  @Test
  void escalationRejectedCarriesTheBudgetBlockWithoutSpending() {
    String id = authorize(h, budgeted(1000, "\"requires_escalation_for\":[\"llm.call\"]"));
    JsonNode escalate = check(h, id, "llm.call").cost(10).result();
    resolveOk(h, escalate.path("escalation_id").asText(), "rejected");
    JsonNode rejected = check(h, id, "llm.call").cost(10).result();
    assertThat(outcome(rejected)).isEqualTo("deny/escalation_rejected");
    assertBudget(rejected, 1000, 0, 10, 0);
    assertThat(spent(id)).isZero();
    h.verifyChain(id);
  }

  @Test
  void resultsFailingBeforeTheBudgetStepCarryNoBudgetBlock() {
    String extra =
        "\"scopes\":[{\"name\":\"llm.call\",\"constraints\":"
            + "{\"max_per_day\":1,\"resource_pattern\":\"m/*\"}}],\"budget_limit_micros\":1000";
    String id = authorize(h, "{" + extra + "}");
    String expiring =
        authorize(
            h,
            "{"
                + extra
                + ",\"expires_at\":\""
                + CheckFixtures.at(ServerHarness.START.plusSeconds(60))
                + "\"}");
    tombstone(h, "m/gone");
    List<JsonNode> results = new ArrayList<>();
    results.add(check(h, id, "other.scope").cost(1).result());
    results.add(check(h, id, "llm.call").resource("x/1").cost(1).result());
    results.add(check(h, id, "llm.call").resource("m/gone").cost(1).result());
    assertThat(check(h, id, "llm.call").resource("m/1").cost(1).outcome()).startsWith("allow/");
    results.add(check(h, id, "llm.call").resource("m/1").cost(1).result());
    h.clock.advance(Duration.ofSeconds(60));
    results.add(check(h, expiring, "llm.call").resource("m/1").cost(1).result());
    revoke(h, id);
    results.add(check(h, id, "llm.call").resource("m/1").cost(1).result());
    results.add(check(h, "auth_unknown", "llm.call").cost(1).result());
    assertThat(results)
        .extracting(CheckFixtures::outcome)
        .containsExactly(
            "deny/scope_not_authorized",
            "deny/scope_not_authorized",
            "deny/resource_tombstoned",
            "deny/rate_limit_exceeded",
            "deny/authorization_expired",
            "deny/authorization_revoked",
            "deny/authorization_not_found");
    for (JsonNode r : results) {
      assertThat(r.has("budget")).as(outcome(r)).isFalse();
      assertThat(verifiedReceipt(h, receiptId(r)).path("context").has("budget"))
          .as(outcome(r))
          .isFalse();
    }
    assertThat(spent(id)).isEqualTo(1);
    h.verifyChain(id);
    h.verifyChain(expiring);
  }
}
