package dev.agentauth.server.service;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.agentauth.model.BudgetBlock;
import dev.agentauth.model.CheckResponse;
import dev.agentauth.model.CheckResult;
import dev.agentauth.model.Decision;
import dev.agentauth.model.EscalationRef;
import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.Reason;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.engine.CheckInput;
import dev.agentauth.server.engine.CheckOutcome;
import dev.agentauth.server.engine.CheckOutcome.Budget;
import dev.agentauth.server.engine.CheckOutcome.Change;
import dev.agentauth.server.engine.CheckOutcome.ConsumeApproval;
import dev.agentauth.server.engine.CheckOutcome.CountAllow;
import dev.agentauth.server.engine.CheckOutcome.CreateEscalation;
import dev.agentauth.server.engine.CheckOutcome.CreateNonce;
import dev.agentauth.server.engine.CheckOutcome.ScopeResult;
import dev.agentauth.server.engine.CheckOutcome.SpendBudget;
import dev.agentauth.server.engine.CheckSnapshot;
import dev.agentauth.server.engine.CheckSnapshot.ScopeState;
import dev.agentauth.server.engine.DecisionEngine;
import dev.agentauth.server.store.CheckTx;
import dev.agentauth.server.store.ReceiptRow;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /v1/check}: reads and locks the authorization's state, lets the {@link
 * DecisionEngine} decide, applies the changes it returns and writes one receipt per scope — all in
 * the caller's transaction.
 */
public final class CheckOps {
  private final ServiceContext ctx;

  public CheckOps(ServiceContext ctx) {
    this.ctx = ctx;
  }

  /** Validates what can be checked without the store; throws a 400 otherwise. */
  public static CheckInput validate(
      String authorizationId,
      List<String> scopes,
      String resource,
      String sessionId,
      Long estimatedCostMicros,
      ObjectNode context) {
    Validation v = new Validation();
    if (v.required("authorization_id", authorizationId)) {
      v.identifier("authorization_id", authorizationId);
    }
    v.scopeNames("scopes", scopes, Validation.MAX_CHECK_SCOPES);
    v.identifier("resource", resource);
    v.identifier("session_id", sessionId);
    v.nonNegative("estimated_cost_micros", estimatedCostMicros);
    if (estimatedCostMicros != null && scopes != null && scopes.size() > 1) {
      v.add("scopes", "a check carrying estimated_cost_micros must name exactly one scope");
    }
    v.opaqueObject("context", context);
    v.throwIfInvalid();
    return new CheckInput(
        authorizationId, scopes, resource, sessionId, estimatedCostMicros, context);
  }

  /** Decides {@code in} for the caller's workspace. */
  public Outcome check(CheckTx tx, Caller caller, CheckInput in) {
    String ws = caller.workspaceId();
    CheckTx.CheckTarget target = tx.authorizationForCheck(ws, in.authorizationId(), in.resource());
    AuthorizationRow auth = target.authorization().orElse(null);
    if (auth != null && auth.budgetLimitMicros() != null) {
      Validation v = new Validation();
      if (in.scopes().size() > 1) {
        v.add("scopes", "the authorization has a budget: a check must name exactly one scope");
      }
      if (in.estimatedCostMicros() == null) {
        v.add("estimated_cost_micros", "is required: the authorization has a budget");
      }
      v.throwIfInvalid();
    }
    Instant now = ctx.now();
    CheckSnapshot snap = snapshot(tx, ws, auth, target, in, now);
    CheckOutcome outcome = ctx.engine().evaluate(ws, snap, in, now);
    apply(tx, auth, outcome.changes(), ctx.webhookEvents());

    List<ReceiptRow> rows = new ArrayList<>(outcome.results().size());
    for (ScopeResult r : outcome.results()) {
      ReceiptRow row =
          ctx.receipts()
              .scopeReceipt(
                  ws,
                  now,
                  r.decision(),
                  r.reason(),
                  auth == null ? null : auth.userId(),
                  auth == null ? null : auth.agentId(),
                  r.scope(),
                  in.resource(),
                  in.sessionId(),
                  receiptContext(in, r),
                  in.authorizationId());
      tx.insertReceipt(row);
      rows.add(row);
    }
    return new Outcome(200, rows, view -> response(auth, in, outcome, rows, view));
  }

  private static CheckSnapshot snapshot(
      CheckTx tx,
      String ws,
      AuthorizationRow auth,
      CheckTx.CheckTarget target,
      CheckInput in,
      Instant now) {
    if (auth == null) {
      return new CheckSnapshot(null, false, Map.of());
    }
    LocalDate day = DecisionEngine.utcDay(now);
    Map<String, ScopeState> states = new HashMap<>();
    for (String scope : in.scopes()) {
      ScopeRule rule = find(auth, scope);
      if (rule == null) {
        continue;
      }
      long count =
          rule.maxPerDay() == null ? 0 : tx.allowCount(ws, auth.authorizationId(), scope, day);
      boolean confirm = auth.requiresConfirmFor().contains(scope);
      boolean escalate = auth.requiresEscalationFor().contains(scope);
      states.put(
          scope,
          new ScopeState(
              count,
              confirm
                  ? tx.activeGrant(ws, auth.authorizationId(), scope, in.resource(), now)
                      .orElse(null)
                  : null,
              confirm
                  ? tx.openNonce(ws, auth.authorizationId(), scope, in.resource(), now).orElse(null)
                  : null,
              escalate
                  ? tx.latestEscalation(ws, auth.authorizationId(), scope, in.resource())
                      .orElse(null)
                  : null));
    }
    return new CheckSnapshot(auth, target.resourceTombstoned(), target.tombstonePatterns(), states);
  }

  private static ScopeRule find(AuthorizationRow auth, String scope) {
    for (ScopeRule r : auth.scopes()) {
      if (r.name().equals(scope)) {
        return r;
      }
    }
    return null;
  }

  private static void apply(
      CheckTx tx, AuthorizationRow auth, List<Change> changes, WebhookEvents events) {
    long spend = 0;
    for (Change c : changes) {
      if (c instanceof CountAllow a) {
        tx.addAllowCount(auth.workspaceId(), auth.authorizationId(), a.scope(), a.day(), 1);
      } else if (c instanceof SpendBudget s) {
        spend += s.amountMicros();
      } else if (c instanceof CreateNonce n) {
        tx.insertNonce(n.nonce());
        events.confirmationRequested(tx, auth, n.nonce());
      } else if (c instanceof CreateEscalation e) {
        tx.insertEscalation(e.escalation());
        events.escalationCreated(tx, e.escalation(), e.escalation().createdAt());
      } else if (c instanceof ConsumeApproval a) {
        tx.updateEscalation(a.escalation());
      }
    }
    if (spend > 0) {
      tx.updateAuthorization(auth.withBudgetSpent(auth.budgetSpentMicros() + spend));
    }
  }

  /** The receipt's {@code context} member, laid out as docs/receipt-format.md describes. */
  private static ObjectNode receiptContext(CheckInput in, ScopeResult r) {
    ObjectNode c = ReceiptFactory.context();
    if (in.context() != null) {
      c.set("client_context", in.context());
    }
    if (in.sessionId() != null) {
      c.put("session_id", in.sessionId());
    }
    if (r.budget() != null) {
      ObjectNode b = c.putObject("budget");
      b.put("limit_micros", r.budget().limitMicros());
      b.put("spent_micros", r.budget().spentMicros());
      b.put("estimated_cost_micros", r.budget().estimatedCostMicros());
      b.put("spent_after_micros", r.budget().spentAfterMicros());
    }
    if (r.grantId() != null) {
      c.put("confirmation_authorization_id", r.grantId());
    }
    if (r.escalation() != null) {
      c.put("escalation_id", r.escalation().escalationId());
    }
    return c;
  }

  private static CheckResponse response(
      AuthorizationRow auth,
      CheckInput in,
      CheckOutcome outcome,
      List<ReceiptRow> rows,
      Outcome.ReceiptView view) {
    Map<String, CheckResult> results = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      ScopeResult r = outcome.results().get(i);
      results.put(r.scope(), result(r, view.apply(rows.get(i))));
    }
    return new CheckResponse(
        in.authorizationId(),
        auth == null ? null : auth.userId(),
        auth == null ? null : auth.agentId(),
        auth == null ? null : auth.expiresAt(),
        DecisionEngine.POLICY_VERSION,
        results);
  }

  private static CheckResult result(ScopeResult r, dev.agentauth.model.ReceiptRef receipt) {
    Budget b = r.budget();
    BudgetBlock budget =
        b == null
            ? null
            : new BudgetBlock(
                b.limitMicros(), b.spentMicros(), b.estimatedCostMicros(), b.spentAfterMicros());
    boolean confirm = r.decision() == Decision.Known.CONFIRM;
    boolean escalate = r.decision() == Decision.Known.ESCALATE;
    EscalationRow e = escalate ? r.escalation() : null;
    return new CheckResult(
        Decision.of(r.decision().wireName()),
        Reason.of(r.reason().wireName()),
        receipt,
        budget,
        confirm ? r.nonce().nonce() : null,
        confirm ? r.nonce().expiresAt() : null,
        confirm ? r.scope() : null,
        e == null
            ? null
            : new EscalationRef(
                e.escalationId(), EscalationStatus.PENDING, e.escalationTo(), e.expiresAt()),
        e == null ? null : e.escalationId(),
        e == null ? null : e.escalationTo(),
        e == null ? null : e.expiresAt(),
        null,
        null);
  }
}
