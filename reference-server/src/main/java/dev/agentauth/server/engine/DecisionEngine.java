package dev.agentauth.server.engine;

import static dev.agentauth.model.Decision.Known.ALLOW;
import static dev.agentauth.model.Decision.Known.CONFIRM;
import static dev.agentauth.model.Decision.Known.DENY;
import static dev.agentauth.model.Decision.Known.ESCALATE;

import dev.agentauth.model.EscalationStatus;
import dev.agentauth.model.Reason;
import dev.agentauth.server.domain.AuthorizationRow;
import dev.agentauth.server.domain.EscalationRow;
import dev.agentauth.server.domain.NonceRow;
import dev.agentauth.server.domain.ScopeRule;
import dev.agentauth.server.engine.CheckOutcome.Budget;
import dev.agentauth.server.engine.CheckOutcome.Change;
import dev.agentauth.server.engine.CheckOutcome.ConsumeApproval;
import dev.agentauth.server.engine.CheckOutcome.CountAllow;
import dev.agentauth.server.engine.CheckOutcome.CreateEscalation;
import dev.agentauth.server.engine.CheckOutcome.CreateNonce;
import dev.agentauth.server.engine.CheckOutcome.ScopeResult;
import dev.agentauth.server.engine.CheckOutcome.SpendBudget;
import dev.agentauth.server.engine.CheckSnapshot.ScopeState;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The one place where checks are decided: a pure function of (snapshot, request, now) that applies
 * the service spec's eleven steps in order, first failing step deciding, and returns the results
 * together with the state changes they imply. It reads nothing and writes nothing itself.
 *
 * <ol>
 *   <li>authorization exists; 2. not revoked; 3. not expired; 4. scope included;
 *   <li value="5">constraints match resource and context; 6. resource not tombstoned; 7. daily rate
 *       limit not reached; 8. budget not exceeded;
 *   <li value="9">escalation approval active, else {@code escalate} (or {@code deny} after a
 *       rejection); 10. confirmation window active, else {@code confirm}; 11. {@code allow}.
 * </ol>
 */
public final class DecisionEngine {

  /** Version of the decision logic; changes whenever the logic does. */
  public static final String POLICY_VERSION = "2026-11-22.1";

  /** Lifetime of a confirmation nonce. */
  public static final Duration NONCE_LIFETIME = Duration.ofMinutes(5);

  /** Lifetime of an escalation. */
  public static final Duration ESCALATION_LIFETIME = Duration.ofHours(24);

  /** How long an escalation approval stays usable after resolution (capped, see resolve). */
  public static final Duration APPROVAL_WINDOW = Duration.ofHours(1);

  private final Supplier<String> nonceIds;
  private final Supplier<String> escalationIds;

  /**
   * @param nonceIds source of fresh, unguessable confirmation nonces
   * @param escalationIds source of fresh escalation ids
   */
  public DecisionEngine(Supplier<String> nonceIds, Supplier<String> escalationIds) {
    this.nonceIds = nonceIds;
    this.escalationIds = escalationIds;
  }

  /** Decides every scope of {@code in} against {@code snap} at {@code now}. */
  public CheckOutcome evaluate(String workspaceId, CheckSnapshot snap, CheckInput in, Instant now) {
    List<ScopeResult> results = new ArrayList<>(in.scopes().size());
    List<Change> changes = new ArrayList<>();
    Tombstoned tombstoned = new Tombstoned(snap, in.resource());
    for (String scope : in.scopes()) {
      results.add(decide(workspaceId, snap, in, scope, now, tombstoned, changes));
    }
    return new CheckOutcome(results, changes);
  }

  /**
   * Step 6's answer for the check's resource, worked out once (at the first scope that reaches the
   * step) whatever the number of scopes: an exact tombstone, or a pattern tombstone that matches
   * the resource with the matcher of {@code resource_pattern} (a null resource matches none).
   */
  private static final class Tombstoned {
    private final CheckSnapshot snap;
    private final String resource;
    private Boolean answer;

    Tombstoned(CheckSnapshot snap, String resource) {
      this.snap = snap;
      this.resource = resource;
    }

    boolean get() {
      if (answer == null) {
        answer =
            snap.resourceTombstoned() || Fnmatch.matchesAny(snap.tombstonePatterns(), resource);
      }
      return answer;
    }
  }

  private ScopeResult decide(
      String ws,
      CheckSnapshot snap,
      CheckInput in,
      String scope,
      Instant now,
      Tombstoned tombstoned,
      List<Change> out) {
    AuthorizationRow auth = snap.authorization();
    if (auth == null) { // 1
      return deny(scope, Reason.Known.AUTHORIZATION_NOT_FOUND, null);
    }
    if (auth.revokedAt() != null) { // 2
      return deny(scope, Reason.Known.AUTHORIZATION_REVOKED, null);
    }
    if (!now.isBefore(auth.expiresAt())) { // 3
      return deny(scope, Reason.Known.AUTHORIZATION_EXPIRED, null);
    }
    ScopeRule rule = findScope(auth, scope);
    if (rule == null) { // 4
      return deny(scope, Reason.Known.SCOPE_NOT_AUTHORIZED, null);
    }
    if (!constraintsMatch(rule, in)) { // 5
      return deny(scope, Reason.Known.SCOPE_NOT_AUTHORIZED, null);
    }
    if (tombstoned.get()) { // 6
      return deny(scope, Reason.Known.RESOURCE_TOMBSTONED, null);
    }
    ScopeState state = snap.scopes().getOrDefault(scope, ScopeState.EMPTY);
    if (rule.maxPerDay() != null && state.allowsToday() >= rule.maxPerDay()) { // 7
      return deny(scope, Reason.Known.RATE_LIMIT_EXCEEDED, null);
    }
    Budget pending = null; // 8
    if (auth.budgetLimitMicros() != null) {
      long spent = auth.budgetSpentMicros();
      long estimate = in.estimatedCostMicros() == null ? 0 : in.estimatedCostMicros();
      if (spent + estimate > auth.budgetLimitMicros()) {
        return deny(
            scope,
            Reason.Known.BUDGET_EXCEEDED,
            new Budget(auth.budgetLimitMicros(), spent, estimate, spent));
      }
      pending = new Budget(auth.budgetLimitMicros(), spent, estimate, spent + estimate);
    }
    Budget notSpent =
        pending == null
            ? null
            : new Budget(
                pending.limitMicros(),
                pending.spentMicros(),
                pending.estimatedCostMicros(),
                pending.spentMicros());

    EscalationRow approval = null; // 9
    if (auth.requiresEscalationFor().contains(scope)) {
      EscalationRow latest = state.latestEscalation();
      if (latest != null && isApprovalActive(latest, now)) {
        approval = latest;
      } else if (latest != null
          && latest.status() == EscalationStatus.Known.REJECTED
          && now.isBefore(latest.expiresAt())) {
        // The receipt names the rejected escalation so an auditor can link the two.
        return new ScopeResult(
            scope, DENY, Reason.Known.ESCALATION_REJECTED, notSpent, null, latest, null);
      } else if (latest != null
          && latest.status() == EscalationStatus.Known.PENDING
          && now.isBefore(latest.expiresAt())) {
        return new ScopeResult(
            scope, ESCALATE, Reason.Known.ESCALATION_REQUIRED, notSpent, null, latest, null);
      } else {
        EscalationRow created =
            new EscalationRow(
                ws,
                escalationIds.get(),
                auth.authorizationId(),
                scope,
                in.resource(),
                EscalationStatus.Known.PENDING,
                auth.escalationTargets().get(scope),
                now,
                now.plus(ESCALATION_LIFETIME),
                null,
                null,
                null,
                null,
                null);
        out.add(new CreateEscalation(created));
        return new ScopeResult(
            scope, ESCALATE, Reason.Known.ESCALATION_REQUIRED, notSpent, null, created, null);
      }
    }

    String grantId = null; // 10
    if (auth.requiresConfirmFor().contains(scope)) {
      if (state.activeGrant() != null && state.activeGrant().isActive(now)) {
        grantId = state.activeGrant().grantId();
      } else {
        NonceRow nonce = state.openNonce();
        if (nonce == null || !nonce.isOpen(now)) {
          nonce =
              new NonceRow(
                  ws,
                  nonceIds.get(),
                  auth.authorizationId(),
                  scope,
                  in.resource(),
                  now,
                  now.plus(NONCE_LIFETIME),
                  null,
                  null);
          out.add(new CreateNonce(nonce));
        }
        return new ScopeResult(
            scope,
            CONFIRM,
            Reason.Known.SCOPE_REQUIRES_USER_CONFIRMATION,
            notSpent,
            nonce,
            null,
            null);
      }
    }

    // 11: allow, counted and spent.
    out.add(new CountAllow(scope, utcDay(now)));
    if (pending != null && pending.estimatedCostMicros() > 0) {
      out.add(new SpendBudget(pending.estimatedCostMicros()));
    }
    Reason.Known reason = Reason.Known.AUTHORIZATION_GRANTED_SCOPE_ACTIVE;
    if (approval != null) {
      out.add(new ConsumeApproval(approval.approvalConsumed(now)));
      reason = Reason.Known.AUTHORIZATION_GRANTED_VIA_ESCALATION;
    } else if (grantId != null) {
      reason = Reason.Known.AUTHORIZATION_GRANTED_VIA_CONFIRMATION;
    }
    return new ScopeResult(scope, ALLOW, reason, pending, null, approval, grantId);
  }

  /** The UTC calendar day that {@code max_per_day} counts in. */
  public static LocalDate utcDay(Instant now) {
    return LocalDate.ofInstant(now, ZoneOffset.UTC);
  }

  private static boolean isApprovalActive(EscalationRow e, Instant now) {
    return e.status() == EscalationStatus.Known.APPROVED
        && e.approvalConsumedAt() == null
        && e.approvalExpiresAt() != null
        && now.isBefore(e.approvalExpiresAt());
  }

  private static ScopeRule findScope(AuthorizationRow auth, String scope) {
    for (ScopeRule rule : auth.scopes()) {
      if (rule.name().equals(scope)) {
        return rule;
      }
    }
    return null;
  }

  private static boolean constraintsMatch(ScopeRule rule, CheckInput in) {
    if (rule.resourcePattern() != null && !Fnmatch.matches(rule.resourcePattern(), in.resource())) {
      return false;
    }
    if (rule.allowedInitiators() != null) {
      String initiator = in.initiatedBy();
      return initiator != null && rule.allowedInitiators().contains(initiator);
    }
    return true;
  }

  private static ScopeResult deny(String scope, Reason.Known reason, Budget budget) {
    return new ScopeResult(scope, DENY, reason, budget, null, null, null);
  }
}
