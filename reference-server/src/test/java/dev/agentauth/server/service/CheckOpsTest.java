package dev.agentauth.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.ApiKeyRole;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.Decision;
import dev.agentauth.model.Plan;
import dev.agentauth.model.Reason;
import dev.agentauth.server.TestClock;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.engine.CheckInput;
import dev.agentauth.server.store.MemoryStore;
import dev.agentauth.server.store.ReceiptRow;
import dev.agentauth.server.store.TombstoneRow;
import dev.agentauth.server.store.Tx;
import dev.agentauth.server.store.WorkspaceRow;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /v1/check} in the service: validation before the store, then in one transaction the
 * snapshot, the engine's decision, its changes (allow counters, budget) and one stored receipt per
 * scope, run here against the memory store with a clock that only moves when told.
 */
class CheckOpsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String WS = "ws_a";
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");
  private static final Caller CALLER =
      new Caller(WS, Plan.Known.PRO, "hash_1", "key_1", ApiKeyRole.AGENT, null, null);

  private final TestClock clock = new TestClock(T0);
  private final MemoryStore store = new MemoryStore();
  private final CheckOps ops =
      new CheckOps(new ServiceContext(store, clock, null, ReceiptQuotas.Limits.UNLIMITED));

  CheckOpsTest() {
    store.inTransaction(tx -> tx.insertWorkspace(new WorkspaceRow(WS, "pro", T0)));
  }

  /** An active authorization of {@code scopes} with an optional budget. */
  private void authorize(String id, Long budgetMicros, ScopeRule... scopes) {
    AuthorizationRow row =
        new AuthorizationRow(
            WS,
            id,
            "user_1",
            "agent_1",
            null,
            List.of(scopes),
            List.of(),
            List.of(),
            Map.of(),
            T0.plus(Duration.ofDays(30)),
            budgetMicros,
            0L,
            T0.minusSeconds(60),
            null,
            null);
    store.inTransaction(
        tx -> {
          tx.insertAuthorization(row);
          return null;
        });
  }

  private static ScopeRule scope(String name, Long maxPerDay) {
    return new ScopeRule(name, maxPerDay, null, null);
  }

  private static CheckInput input(String authorizationId, String... scopes) {
    return CheckOps.validate(authorizationId, List.of(scopes), "doc:1", null, null, null);
  }

  private Outcome check(CheckInput in) {
    return store.inTransaction(tx -> ops.check(tx, CALLER, in));
  }

  private static CheckResponse response(Outcome o) {
    return (CheckResponse) o.body().apply(row -> null);
  }

  private static Decision decision(Outcome o, String scope) {
    return response(o).results().get(scope).decision();
  }

  private static Reason reason(Outcome o, String scope) {
    return response(o).results().get(scope).reason();
  }

  private ReceiptRow stored(ReceiptRow row) {
    return store.read((Tx tx) -> tx.receipt(WS, row.receiptId())).orElseThrow();
  }

  private long allowCount(String authorizationId, String scope, LocalDate day) {
    return store.read((Tx tx) -> tx.allowCount(WS, authorizationId, scope, day));
  }

  private static void assertInvalidNaming(Runnable call, String field) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            ServiceException.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.errors())
                  .extracting(ServiceException.FieldProblem::field)
                  .contains(field);
            });
  }

  @Test
  void validateReturnsTheInputItChecked() {
    ObjectNode context = JSON.createObjectNode().put("ticket", "T-1");

    CheckInput in =
        CheckOps.validate("auth_1", List.of("calendar.read"), "doc:1", "sess_1", 5L, context);

    assertThat(in)
        .isEqualTo(
            new CheckInput("auth_1", List.of("calendar.read"), "doc:1", "sess_1", 5L, context));
  }

  @Test
  void validateNamesEachInvalidField() {
    assertInvalidNaming(
        () -> CheckOps.validate(null, List.of("calendar.read"), null, null, null, null),
        "authorization_id");
    assertInvalidNaming(
        () -> CheckOps.validate("auth_1", List.of(), null, null, null, null), "scopes");
    assertInvalidNaming(
        () -> CheckOps.validate("auth_1", List.of("a", "b"), null, null, 5L, null), "scopes");
    assertInvalidNaming(
        () -> CheckOps.validate("auth_1", List.of("a"), null, null, -1L, null),
        "estimated_cost_micros");
    assertInvalidNaming(
        () -> CheckOps.validate("auth_1", List.of("a"), "doc\u0001", null, null, null), "resource");
  }

  @Test
  void aCheckMayNotSendTheConfirmationMemberTheServerWrites() {
    ObjectNode context = JSON.createObjectNode();
    context.putObject(CheckOps.CONFIRMATION_MEMBER).put("key_id", "forged");

    assertInvalidNaming(
        () -> CheckOps.validate("auth_1", List.of("a"), null, null, null, context),
        "context.agentauth_confirmation");
  }

  @Test
  void anAllowCountsTheAllowAndStoresOnePendingReceipt() {
    authorize("auth_1", null, scope("calendar.read", 5L));

    Outcome o = check(input("auth_1", "calendar.read"));

    assertThat(o.status()).isEqualTo(200);
    assertThat(decision(o, "calendar.read")).isEqualTo(Decision.ALLOW);
    assertThat(reason(o, "calendar.read")).isEqualTo(Reason.AUTHORIZATION_GRANTED_SCOPE_ACTIVE);
    assertThat(o.receipts()).hasSize(1);
    ReceiptRow row = o.receipts().get(0);
    assertThat(stored(row)).isEqualTo(row);
    assertThat(row.isSigned()).isFalse();
    assertThat(row)
        .extracting(
            ReceiptRow::decision,
            ReceiptRow::scope,
            ReceiptRow::userId,
            ReceiptRow::authorizationId,
            ReceiptRow::issuedAt)
        .containsExactly("allow", "calendar.read", "user_1", "auth_1", T0);
    assertThat(allowCount("auth_1", "calendar.read", LocalDate.parse("2026-11-22"))).isEqualTo(1);
  }

  @Test
  void theDailyLimitDeniesTheNextAllowUntilTheNextUtcDay() {
    authorize("auth_1", null, scope("calendar.read", 2L));

    assertThat(decision(check(input("auth_1", "calendar.read")), "calendar.read"))
        .isEqualTo(Decision.ALLOW);
    assertThat(decision(check(input("auth_1", "calendar.read")), "calendar.read"))
        .isEqualTo(Decision.ALLOW);
    Outcome third = check(input("auth_1", "calendar.read"));
    clock.set(Instant.parse("2026-11-23T00:00:00Z"));
    Outcome nextDay = check(input("auth_1", "calendar.read"));

    assertThat(decision(third, "calendar.read")).isEqualTo(Decision.DENY);
    assertThat(reason(third, "calendar.read")).isEqualTo(Reason.RATE_LIMIT_EXCEEDED);
    assertThat(stored(third.receipts().get(0)).decision()).isEqualTo("deny");
    assertThat(allowCount("auth_1", "calendar.read", LocalDate.parse("2026-11-22"))).isEqualTo(2);
    assertThat(decision(nextDay, "calendar.read")).isEqualTo(Decision.ALLOW);
    assertThat(allowCount("auth_1", "calendar.read", LocalDate.parse("2026-11-23"))).isEqualTo(1);
  }

  @Test
  void eachScopeGetsItsOwnReceiptInTheOrderAsked() {
    authorize("auth_1", null, scope("calendar.read", null), scope("email.send", null));

    Outcome o = check(input("auth_1", "email.send", "files.delete", "calendar.read"));

    assertThat(o.receipts())
        .extracting(ReceiptRow::scope)
        .containsExactly("email.send", "files.delete", "calendar.read");
    assertThat(o.receipts())
        .extracting(ReceiptRow::decision)
        .containsExactly("allow", "deny", "allow");
    assertThat(response(o).results().keySet())
        .containsExactly("email.send", "files.delete", "calendar.read");
    assertThat(reason(o, "files.delete")).isEqualTo(Reason.SCOPE_NOT_AUTHORIZED);
    assertThat(o.receipts()).extracting(ReceiptRow::receiptId).doesNotHaveDuplicates();
    for (ReceiptRow row : o.receipts()) {
      assertThat(stored(row)).isEqualTo(row);
    }
  }

  @Test
  void anUnknownAuthorizationIsDeniedWithAReceiptNamingNoUser() {
    Outcome o = check(input("auth_unknown", "calendar.read"));

    assertThat(decision(o, "calendar.read")).isEqualTo(Decision.DENY);
    assertThat(reason(o, "calendar.read")).isEqualTo(Reason.AUTHORIZATION_NOT_FOUND);
    ReceiptRow row = stored(o.receipts().get(0));
    assertThat(row.userId()).isNull();
    assertThat(row.authorizationId()).isEqualTo("auth_unknown");
    assertThat(response(o).userId()).isNull();
  }

  @Test
  void aTombstonedResourceIsDenied() {
    authorize("auth_1", null, scope("calendar.read", 5L));
    store.inTransaction(
        tx -> {
          tx.insertTombstone(new TombstoneRow(WS, "doc:1", null, "legal hold", T0));
          return null;
        });

    Outcome o = check(input("auth_1", "calendar.read"));

    assertThat(decision(o, "calendar.read")).isEqualTo(Decision.DENY);
    assertThat(reason(o, "calendar.read")).isEqualTo(Reason.RESOURCE_TOMBSTONED);
    assertThat(allowCount("auth_1", "calendar.read", LocalDate.parse("2026-11-22"))).isZero();
  }

  @Test
  void anAllowSpendsTheEstimateAndACheckPastTheBudgetIsDeniedSpendingNothing() {
    authorize("auth_1", 100L, scope("payments.charge", null));
    CheckInput sixty =
        CheckOps.validate("auth_1", List.of("payments.charge"), null, null, 60L, null);

    Outcome first = check(sixty);
    Outcome second = check(sixty);

    assertThat(decision(first, "payments.charge")).isEqualTo(Decision.ALLOW);
    assertThat(response(first).results().get("payments.charge").budget().spentAfterMicros())
        .isEqualTo(60);
    assertThat(decision(second, "payments.charge")).isEqualTo(Decision.DENY);
    assertThat(reason(second, "payments.charge")).isEqualTo(Reason.BUDGET_EXCEEDED);
    assertThat(
            store.read((Tx tx) -> tx.authorization(WS, "auth_1")).orElseThrow().budgetSpentMicros())
        .isEqualTo(60);
  }

  @Test
  void aBudgetedAuthorizationNeedsOneScopeAndAnEstimate() {
    authorize("auth_1", 100L, scope("payments.charge", null), scope("payments.refund", null));

    assertInvalidNaming(
        () -> check(input("auth_1", "payments.charge", "payments.refund")), "scopes");
    assertInvalidNaming(() -> check(input("auth_1", "payments.charge")), "estimated_cost_micros");
    assertThat(store.read((Tx tx) -> tx.pendingReceipts(null, 10))).isEmpty();
  }

  @Test
  void theReceiptContextHoldsTheClientsContextTheSessionAndTheBudget() throws Exception {
    authorize("auth_1", 100L, scope("payments.charge", null));
    ObjectNode context = JSON.createObjectNode().put("ticket", "T-1");

    Outcome o =
        check(
            CheckOps.validate(
                "auth_1", List.of("payments.charge"), "doc:1", "sess_1", 30L, context));

    JsonNode receiptContext = JSON.readTree(o.receipts().get(0).payloadJson()).get("context");
    assertThat(receiptContext)
        .isEqualTo(
            JSON.readTree(
                "{\"client_context\":{\"ticket\":\"T-1\"},\"session_id\":\"sess_1\","
                    + "\"budget\":{\"limit_micros\":100,\"spent_micros\":0,"
                    + "\"estimated_cost_micros\":30,\"spent_after_micros\":30}}"));
    assertThat(o.receipts().get(0).sessionId()).isEqualTo("sess_1");
  }
}
